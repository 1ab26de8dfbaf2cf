#pragma once
// A schema check the tests carry for the manifests `servebench k8s-job` writes: the objects, fields
// and types of the Kubernetes API's OpenAPI definitions (batch/v1 Job and JobSpec; core/v1
// PodTemplateSpec, PodSpec, Container, EnvVar, VolumeMount, Volume, ResourceRequirements,
// PersistentVolumeClaim, ConfigMap; v1 List), trimmed to what a Job manifest may hold, written by
// us as a JSON Schema subset (type, required, properties with no unknown keys, items, enum,
// pattern (searched, as JSON Schema does; anchored where the API anchors),
// minimum, minItems, $ref), plus the Job API's own validation rules that OpenAPI does not
// state (restartPolicy Never/OnFailure, completions set for an Indexed Job, names DNS-1123).
// No kubectl or cluster needed: check_manifest() returns every violation as "path: what".
#include <regex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace sb::k8s_check {

inline const nlohmann::json& schema_definitions() {
  static const nlohmann::json defs = nlohmann::json::parse(R"JSON({
  "Quantity": {"type": "string", "pattern": "^[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei|[eE][+-]?[0-9]+)?$"},
  "Name": {"type": "string", "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$", "maxLength": 253},
  "Label": {"type": "string", "pattern": "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$", "maxLength": 63},
  "StringMap": {"type": "object", "additionalProperties": {"type": "string"}},
  "ObjectMeta": {"type": "object", "required": ["name"], "properties": {
      "name": {"$ref": "Name"}, "namespace": {"$ref": "Label"}, "labels": {"$ref": "StringMap"},
      "annotations": {"$ref": "StringMap"}, "generateName": {"type": "string"}}},
  "TemplateMeta": {"type": "object", "properties": {
      "name": {"$ref": "Name"}, "labels": {"$ref": "StringMap"}, "annotations": {"$ref": "StringMap"}}},
  "Job": {"type": "object", "required": ["apiVersion", "kind", "metadata", "spec"], "properties": {
      "apiVersion": {"enum": ["batch/v1"]}, "kind": {"enum": ["Job"]},
      "metadata": {"$ref": "ObjectMeta"}, "spec": {"$ref": "JobSpec"}}},
  "JobSpec": {"type": "object", "required": ["template"], "properties": {
      "activeDeadlineSeconds": {"type": "integer", "minimum": 1}, "backoffLimit": {"type": "integer", "minimum": 0},
      "backoffLimitPerIndex": {"type": "integer", "minimum": 0},
      "completionMode": {"enum": ["NonIndexed", "Indexed"]}, "completions": {"type": "integer", "minimum": 0},
      "manualSelector": {"type": "boolean"}, "maxFailedIndexes": {"type": "integer", "minimum": 0},
      "parallelism": {"type": "integer", "minimum": 0}, "suspend": {"type": "boolean"},
      "podReplacementPolicy": {"enum": ["TerminatingOrFailed", "Failed"]},
      "ttlSecondsAfterFinished": {"type": "integer", "minimum": 0}, "template": {"$ref": "PodTemplateSpec"}}},
  "PodTemplateSpec": {"type": "object", "required": ["spec"], "properties": {
      "metadata": {"$ref": "TemplateMeta"}, "spec": {"$ref": "PodSpec"}}},
  "PodSpec": {"type": "object", "required": ["containers"], "properties": {
      "containers": {"type": "array", "minItems": 1, "items": {"$ref": "Container"}},
      "initContainers": {"type": "array", "items": {"$ref": "Container"}},
      "restartPolicy": {"enum": ["Always", "OnFailure", "Never"]},
      "serviceAccountName": {"$ref": "Name"}, "nodeSelector": {"$ref": "StringMap"},
      "terminationGracePeriodSeconds": {"type": "integer", "minimum": 0},
      "volumes": {"type": "array", "items": {"$ref": "Volume"}}}},
  "Container": {"type": "object", "required": ["name"], "properties": {
      "name": {"$ref": "Label"}, "image": {"type": "string"},
      "imagePullPolicy": {"enum": ["Always", "Never", "IfNotPresent"]},
      "command": {"type": "array", "items": {"type": "string"}}, "args": {"type": "array", "items": {"type": "string"}},
      "workingDir": {"type": "string"}, "env": {"type": "array", "items": {"$ref": "EnvVar"}},
      "resources": {"$ref": "ResourceRequirements"},
      "volumeMounts": {"type": "array", "items": {"$ref": "VolumeMount"}}}},
  "EnvVar": {"type": "object", "required": ["name"], "properties": {
      "name": {"type": "string", "pattern": "^[-._a-zA-Z][-._a-zA-Z0-9]*$"}, "value": {"type": "string"},
      "valueFrom": {"$ref": "EnvVarSource"}}},
  "EnvVarSource": {"type": "object", "properties": {
      "fieldRef": {"type": "object", "required": ["fieldPath"], "properties": {
          "apiVersion": {"type": "string"}, "fieldPath": {"type": "string"}}},
      "secretKeyRef": {"type": "object", "required": ["key"], "properties": {
          "name": {"$ref": "Name"}, "key": {"type": "string"}, "optional": {"type": "boolean"}}},
      "configMapKeyRef": {"type": "object", "required": ["key"], "properties": {
          "name": {"$ref": "Name"}, "key": {"type": "string"}, "optional": {"type": "boolean"}}}}},
  "ResourceRequirements": {"type": "object", "properties": {
      "limits": {"type": "object", "additionalProperties": {"$ref": "Quantity"}},
      "requests": {"type": "object", "additionalProperties": {"$ref": "Quantity"}}}},
  "VolumeMount": {"type": "object", "required": ["name", "mountPath"], "properties": {
      "name": {"type": "string"}, "mountPath": {"type": "string", "pattern": "^/"}, "readOnly": {"type": "boolean"},
      "subPath": {"type": "string", "pattern": "^[^/]"}}},
  "Volume": {"type": "object", "required": ["name"], "properties": {
      "name": {"$ref": "Label"},
      "persistentVolumeClaim": {"type": "object", "required": ["claimName"], "properties": {
          "claimName": {"$ref": "Name"}, "readOnly": {"type": "boolean"}}},
      "configMap": {"type": "object", "properties": {"name": {"$ref": "Name"}, "defaultMode": {"type": "integer"},
          "optional": {"type": "boolean"}}},
      "emptyDir": {"type": "object", "properties": {"medium": {"type": "string"}, "sizeLimit": {"$ref": "Quantity"}}}}},
  "PersistentVolumeClaim": {"type": "object", "required": ["apiVersion", "kind", "metadata", "spec"], "properties": {
      "apiVersion": {"enum": ["v1"]}, "kind": {"enum": ["PersistentVolumeClaim"]}, "metadata": {"$ref": "ObjectMeta"},
      "spec": {"type": "object", "properties": {
          "accessModes": {"type": "array", "minItems": 1, "items": {"enum": ["ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"]}},
          "storageClassName": {"type": "string"}, "volumeMode": {"enum": ["Filesystem", "Block"]},
          "resources": {"$ref": "ResourceRequirements"}}}}},
  "ConfigMap": {"type": "object", "required": ["apiVersion", "kind", "metadata"], "properties": {
      "apiVersion": {"enum": ["v1"]}, "kind": {"enum": ["ConfigMap"]}, "metadata": {"$ref": "ObjectMeta"},
      "data": {"type": "object", "additionalProperties": {"type": "string"}}, "immutable": {"type": "boolean"}}},
  "List": {"type": "object", "required": ["apiVersion", "kind", "items"], "properties": {
      "apiVersion": {"enum": ["v1"]}, "kind": {"enum": ["List"]}, "items": {"type": "array"}}}
})JSON");
  return defs;
}

inline bool k8s_type_is(const nlohmann::json& v, const std::string& t) {
  if (t == "object") return v.is_object();
  if (t == "array") return v.is_array();
  if (t == "string") return v.is_string();
  if (t == "integer") return v.is_number_integer();
  if (t == "boolean") return v.is_boolean();
  return false;
}

// Validates `v` against `schema`, appending "path: what" for each violation.
inline void k8s_validate(const nlohmann::json& v, const nlohmann::json& schema, const std::string& path,
                         std::vector<std::string>& errors) {
  if (schema.contains("$ref")) {
    k8s_validate(v, schema_definitions().at(schema["$ref"].get<std::string>()), path, errors);
    return;
  }
  if (schema.contains("enum")) {
    bool found = false;
    for (const auto& e : schema["enum"]) found = found || e == v;
    if (!found) errors.push_back(path + ": " + v.dump() + " is not one of " + schema["enum"].dump());
    return;
  }
  if (schema.contains("type") && !k8s_type_is(v, schema["type"])) {
    errors.push_back(path + ": " + v.dump() + " is not of type " + schema["type"].get<std::string>());
    return;
  }
  if (v.is_string() && schema.contains("pattern") &&
      !std::regex_search(v.get<std::string>(), std::regex(schema["pattern"].get<std::string>())))
    errors.push_back(path + ": '" + v.get<std::string>() + "' does not match " + schema["pattern"].get<std::string>());
  if (v.is_string() && schema.contains("maxLength") && v.get<std::string>().size() > schema["maxLength"].get<std::size_t>())
    errors.push_back(path + ": longer than " + schema["maxLength"].dump());
  if (v.is_number_integer() && schema.contains("minimum") && v.get<long long>() < schema["minimum"].get<long long>())
    errors.push_back(path + ": below " + schema["minimum"].dump());
  if (v.is_array()) {
    if (schema.contains("minItems") && v.size() < schema["minItems"].get<std::size_t>())
      errors.push_back(path + ": fewer than " + schema["minItems"].dump() + " items");
    if (schema.contains("items"))
      for (std::size_t i = 0; i < v.size(); ++i) k8s_validate(v[i], schema["items"], path + "[" + std::to_string(i) + "]", errors);
  }
  if (!v.is_object()) return;
  if (schema.contains("required"))
    for (const auto& r : schema["required"])
      if (!v.contains(r.get<std::string>())) errors.push_back(path + ": missing required field " + r.get<std::string>());
  for (const auto& [key, value] : v.items()) {
    if (schema.contains("properties")) {
      if (!schema["properties"].contains(key)) errors.push_back(path + ": unknown field " + key);
      else k8s_validate(value, schema["properties"][key], path + "." + key, errors);
    } else if (schema.contains("additionalProperties")) {
      k8s_validate(value, schema["additionalProperties"], path + "." + key, errors);
    }
  }
}

// The Job API's own rules (pkg/apis/batch/validation), beyond the types.
inline void k8s_job_rules(const nlohmann::json& job, const std::string& path, std::vector<std::string>& errors) {
  const nlohmann::json& spec = job.value("spec", nlohmann::json::object());
  const nlohmann::json pod = spec.contains("template") ? spec["template"].value("spec", nlohmann::json::object())
                                                       : nlohmann::json::object();
  const std::string restart = pod.value("restartPolicy", "Always");
  if (restart != "Never" && restart != "OnFailure")
    errors.push_back(path + ".spec.template.spec.restartPolicy: a Job's pods need Never or OnFailure, not " + restart);
  if (spec.value("completionMode", "NonIndexed") == "Indexed" && !spec.contains("completions"))
    errors.push_back(path + ".spec.completions: required when completionMode is Indexed");
  std::vector<std::string> volumes;
  for (const auto& vol : pod.value("volumes", nlohmann::json::array())) volumes.push_back(vol.value("name", ""));
  for (const auto& c : pod.value("containers", nlohmann::json::array()))
    for (const auto& m : c.value("volumeMounts", nlohmann::json::array()))
      if (std::find(volumes.begin(), volumes.end(), m.value("name", "")) == volumes.end())
        errors.push_back(path + ": volumeMount " + m.value("name", "") + " names no volume of the pod");
}

// Every violation in a manifest: a v1 List of objects, or one object.
inline std::vector<std::string> check_manifest(const nlohmann::json& doc) {
  std::vector<std::string> errors;
  std::vector<std::pair<nlohmann::json, std::string>> objects;
  if (doc.value("kind", "") == "List") {
    k8s_validate(doc, schema_definitions()["List"], "$", errors);
    if (doc.contains("items") && doc["items"].is_array())
      for (std::size_t i = 0; i < doc["items"].size(); ++i) objects.emplace_back(doc["items"][i], "$.items[" + std::to_string(i) + "]");
  } else {
    objects.emplace_back(doc, "$");
  }
  for (const auto& [obj, path] : objects) {
    const std::string kind = obj.value("kind", "");
    if (!schema_definitions().contains(kind) || kind == "List") {
      errors.push_back(path + ": kind '" + kind + "' is not checked here");
      continue;
    }
    k8s_validate(obj, schema_definitions()[kind], path, errors);
    if (kind == "Job") k8s_job_rules(obj, path, errors);
  }
  return errors;
}

}  // namespace sb::k8s_check
