#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Validates JSON lines files against data/waldboost-metadata.schema.json
(python3-jsonschema): validate_documents.py FILE... Exit 1 on the first
document that does not match, saying which and why."""
import json
import os
import sys

import jsonschema

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data",
                      "waldboost-metadata.schema.json")


def validator():
    with open(SCHEMA, encoding="utf-8") as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    return jsonschema.Draft7Validator(schema)


def reject_constant(name):
    raise SystemExit(f"{name} is not JSON")


def validate_lines(v, lines, where):
    count = 0
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        # Strict JSON: Python's NaN and Infinity are no JSON.
        doc = json.loads(line, parse_constant=reject_constant)
        errors = sorted(v.iter_errors(doc), key=str)
        if errors:
            raise SystemExit(f"{where}:{number}: {errors[0].message}\n{line}")
        count += 1
    return count


def main():
    v = validator()
    total = 0
    for path in sys.argv[1:]:
        with open(path, encoding="utf-8") as f:
            total += validate_lines(v, f, path)
    print(f"{total} documents valid against {os.path.basename(SCHEMA)}")


if __name__ == "__main__":
    main()
