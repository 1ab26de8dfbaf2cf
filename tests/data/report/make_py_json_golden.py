#!/usr/bin/python3
"""Writes py_json.golden and py_json_indent.golden: what Python's json.dump writes for the document
that tests/report/py_json_test.cpp builds (keep the two in sync).
Run from the repository root: /usr/bin/python3 tests/data/report/make_py_json_golden.py
"""
import json

doc = {
    "date": "20261130-031500",
    "label": None,
    "flag": True,
    "off": False,
    "int": 42,
    "neg": -7,
    "big": 18446744073709551615,
    "floats": [10.0, 0.1, 1e-05, 0.0001, 1e+16, 1e15, 123456.789, -0.0, 0.0, 2.5e-07,
               1.7976931348623157e308, 5e-324, 0.3333333333333333, 1234567890123456.8, 100.0],
    "special": [float("nan"), float("inf"), float("-inf")],
    "text": "quote\" back\\ nl\n tab\t cr\r bs\b ff\f nul\x00 del\x7f",
    "unicode": "caf\u00e9 \u4f60\u597d \U0001F600",
    "empty_obj": {},
    "empty_arr": [],
    "nested": {"p99.9_ttft_ms": 1.5, "itls": [[0.01, 0.02], []]},
}

with open("tests/data/report/py_json.golden", "w") as f:
    json.dump(doc, f)
with open("tests/data/report/py_json_indent.golden", "w") as f:
    json.dump(doc, f, indent=2)
