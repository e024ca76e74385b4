#!/usr/bin/env python3
"""Validates JSON files against one of QuantLens's JSON Schemas (resources/docs/schema/).

  validate_json.py analysis OUT.json [MORE.json ...]

The first argument names the schema (analysis, search, calib-lab, skip-list, project). Prints one
line per file; exits 1 with the first errors of each file that does not validate. Needs Debian's
python3-jsonschema (Draft 2020-12)."""
import json
import os
import sys

import jsonschema

SCHEMAS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "resources", "docs",
                       "schema")


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    name, files = sys.argv[1], sys.argv[2:]
    with open(os.path.join(SCHEMAS, name + ".schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft202012Validator.check_schema(schema)
    validator = jsonschema.Draft202012Validator(schema)
    bad = 0
    for path in files:
        with open(path) as f:
            document = json.load(f)
        errors = sorted(validator.iter_errors(document), key=lambda e: list(e.absolute_path))
        if errors:
            bad += 1
            print(f"{path}: {len(errors)} error(s) against {name}.schema.json")
            for e in errors[:5]:
                where = "/".join(str(p) for p in e.absolute_path) or "(root)"
                print(f"  {where}: {e.message[:300]}")
        else:
            print(f"{path}: valid ({name})")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
