"""Checks JSON against the schemas of Schemas/ with Python's jsonschema (draft 2020-12), a
validator we did not write. `sys.argv[1]` picks the mode:

- `check-schema SCHEMA`: `Draft202012Validator.check_schema` against the 2020-12 metaschema.
- `formats`: prints the sorted names of the formats the format checker checks.
- `validate SCHEMA INSTANCE`: prints every error (pointer and message), exit 1 if any.
- `best-match SCHEMA INSTANCE`: prints `best_match` as JSON (keyword, instancePointer and, for
  required, additionalProperties and dependentRequired, the first key concerned), or `null`.
- `real-passes SCHEMA FOLDER`: reads FOLDER/index.json, opens each .pkpass there with zipfile,
  reads its pass.json (trailing commas dropped outside strings, as Wallet's reader accepts them)
  and prints {file: [violation, ...]} for every pass whose pass.json could be read. A violation
  is "keyword|pointer|key", one a key concerned, sorted and without repeats.
"""
import json
import sys
import zipfile

from jsonschema import Draft202012Validator as V
from jsonschema.exceptions import best_match


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def pointer(path):
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def keys_concerned(e):
    """The keys a required, additionalProperties or dependentRequired error is about."""
    if e.validator == "required":
        return [p for p in e.validator_value if p not in e.instance]
    if e.validator == "additionalProperties":
        return sorted(k for k in e.instance if k not in e.schema.get("properties", {}))
    if e.validator == "dependentRequired":
        return [p for k, ps in e.validator_value.items() if k in e.instance for p in ps if p not in e.instance]
    return []


def without_trailing_commas(text):
    out, in_string, escaped, pending = [], False, False, None
    for ch in text:
        if in_string:
            out.append(ch)
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
            continue
        if pending is not None:
            if ch in " \t\r\n":
                pending.append(ch)
                continue
            if ch not in "}]":
                out.append(",")
            out.extend(pending)
            pending = None
        if ch == ",":
            pending = []
            continue
        if ch == '"':
            in_string = True
        out.append(ch)
    if pending is not None:
        out.append(",")
        out.extend(pending)
    return "".join(out)


def real_passes(validator, folder):
    result = {}
    for entry in load(f"{folder}/index.json")["passes"]:
        if entry["kind"] != "pkpass":
            continue
        try:
            with zipfile.ZipFile(f"{folder}/{entry['file']}") as archive:
                text = archive.read("pass.json").decode("utf-8-sig")
            instance = json.loads(without_trailing_commas(text))
        except (zipfile.BadZipFile, KeyError, ValueError):
            continue
        found = set()
        for e in validator.iter_errors(instance):
            for key in keys_concerned(e) or [""]:
                found.add(f"{e.validator}|{pointer(e.absolute_path)}|{key}")
        result[entry["file"]] = sorted(found)
    return result


mode = sys.argv[1]
if mode == "formats":
    print(json.dumps(sorted(V.FORMAT_CHECKER.checkers)))
    sys.exit(0)
schema = load(sys.argv[2])
if mode == "check-schema":
    V.check_schema(schema)
    print("ok")
    sys.exit(0)
validator = V(schema, format_checker=V.FORMAT_CHECKER)
if mode == "real-passes":
    print(json.dumps(real_passes(validator, sys.argv[3]), indent=1, sort_keys=True))
    sys.exit(0)
instance = load(sys.argv[3])
if mode == "validate":
    errors = sorted(validator.iter_errors(instance), key=lambda e: list(map(str, e.absolute_path)))
    for e in errors:
        print(pointer(e.absolute_path) or "(root)", e.validator, e.message)
    sys.exit(1 if errors else 0)
if mode == "best-match":
    e = best_match(validator.iter_errors(instance))
    if e is None:
        print("null")
        sys.exit(0)
    result = {"keyword": e.validator, "instancePointer": pointer(e.absolute_path)}
    keys = keys_concerned(e)
    if keys:
        result["property"] = keys[0]
    print(json.dumps(result))
    sys.exit(0)
sys.exit("unknown mode " + mode)
