#pragma once
// Every knob of the simulated engine in ONE table (engine_knobs.cpp): its flag, its table and key
// in the engine TOML file, the EngineConfig field it sets, the values it accepts, its help text and
// whether calibrate may fit it. cli/sim_engine_flags generates the flags from it, sim/engine_toml
// reads and writes the file through it, predict/fit_params is the view of its fittable rows. A new
// knob is one row there.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sim/engine.hpp"

namespace sb::sim {

// Where a knob lives in one EngineConfig; the pointer's type is the knob's type.
using KnobField = std::variant<int*, std::int64_t*, double*, std::optional<double>*, bool*, std::string*>;

// A value given for a knob (by a flag, the file, a caller): whole numbers, numbers, switches, names.
using KnobValue = std::variant<std::int64_t, double, bool, std::string>;

enum class KnobType { integer, number, boolean, text };

struct KnobFit {
  double lower = 0, upper = 0;        // search bounds (the fit works on log values: both > 0)
  bool tensor_parallel_only = false;  // no effect with TP 1: not fitted there (it cannot be seen)
};

struct EngineKnob {
  std::string_view table;  // of the TOML file: engine, model, gpu or cost
  std::string_view key;    // in that table, e.g. "max_num_seqs"
  std::string_view flag;   // e.g. "--max-num-seqs"; empty for a knob only the file (or a caller) sets
  // nullptr for a preset name (engine.model_preset, engine.gpu_preset): it picks the base values
  // the other knobs then override, and is no field of its own.
  KnobField (*field)(EngineConfig&) = nullptr;
  double min = 0, max = 0;  // accepted range of an integer or number knob, flags and file alike
  std::string_view help;
  bool negatable = false;      // a switch with a --no- twin of its flag
  std::optional<KnobFit> fit;  // set where calibrate may fit it

  bool is_preset() const { return field == nullptr; }
};

std::span<const EngineKnob> engine_knobs();
// The file's tables in the order messages list them.
std::span<const std::string_view> knob_tables();

// nullptr when the table has no such key.
const EngineKnob* find_knob(std::string_view table, std::string_view key);
// `path` is "table.key" ("engine.max_num_seqs", "cost.step_overhead_us"); nullptr when unknown.
const EngineKnob* find_knob(std::string_view path);
std::string knob_path(const EngineKnob& knob);
std::size_t knob_index(const EngineKnob& knob);
KnobType knob_type(const EngineKnob& knob);

// The knob's value in `config`; nullopt for a preset name or an optional field that is unset.
std::optional<KnobValue> knob_value(const EngineKnob& knob, const EngineConfig& config);
// Sets the field; an integer given for a number knob is taken as that number.
void set_knob(const EngineKnob& knob, const KnobValue& value, EngineConfig& config);
// "must be at least 1 (got 0.5)" for a value outside [min, max] (NaN included); nullopt when accepted.
std::optional<std::string> knob_bounds_problem(const EngineKnob& knob, const KnobValue& value);

// Values given for some knobs, one layer of the precedence preset < file < flags; an unset knob
// keeps the value of the layer below.
class KnobSettings {
 public:
  KnobSettings();
  // A wrong path or a value of another type is a bug of the caller: std::logic_error.
  void set(std::string_view path, KnobValue value);
  void set(const EngineKnob& knob, KnobValue value);
  const std::optional<KnobValue>& get(const EngineKnob& knob) const;
  // T is the knob's value type: std::int64_t, double, bool or std::string.
  template <class T>
  std::optional<T> get(std::string_view path) const {
    const std::optional<KnobValue>& v = get(must_find(path));
    return v ? std::optional<T>(std::get<T>(*v)) : std::nullopt;
  }
  // This layer with `above`'s values put over it.
  void overlay(const KnobSettings& above);
  // Every set knob into `config` (preset names excepted: they chose the base).
  void apply(EngineConfig& config) const;

 private:
  static const EngineKnob& must_find(std::string_view path);
  std::vector<std::optional<KnobValue>> values_;
};

}  // namespace sb::sim
