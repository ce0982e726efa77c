"""Validates the pass.json of every real pass against a schema with Python's jsonschema.

    python3 real_pass_schema.py SCHEMA REAL_PASSES_FOLDER

Reads REAL_PASSES_FOLDER/index.json, opens each .pkpass there with zipfile, reads its pass.json
(trailing commas dropped outside strings, as Wallet's reader accepts them) and prints one JSON
object: {file: [violation, ...]} for every pass whose pass.json could be read. A violation is
"keyword|pointer|property": the schema keyword, the RFC 6901 pointer of the object or value, and
for required, dependentRequired and additionalProperties the key concerned (one violation a key),
sorted and without repeats.
"""
import json
import sys
import zipfile

from jsonschema import Draft202012Validator as V


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


def pointer(path):
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def violations(validator, instance):
    found = []
    for e in validator.iter_errors(instance):
        where = pointer(e.absolute_path)
        if e.validator == "required":
            keys = [k for k in e.validator_value if k not in e.instance]
        elif e.validator == "additionalProperties":
            keys = sorted(k for k in e.instance if k not in e.schema.get("properties", {}))
        elif e.validator == "dependentRequired":
            keys = [p for k, ps in e.validator_value.items() if k in e.instance for p in ps if p not in e.instance]
        else:
            keys = [""]
        found += [f"{e.validator}|{where}|{key}" for key in keys]
    return sorted(set(found))


def main():
    schema_path, folder = sys.argv[1], sys.argv[2]
    with open(schema_path, encoding="utf-8") as f:
        validator = V(json.load(f), format_checker=V.FORMAT_CHECKER)
    with open(f"{folder}/index.json", encoding="utf-8") as f:
        index = json.load(f)
    result = {}
    for entry in index["passes"]:
        if entry["kind"] != "pkpass":
            continue
        try:
            with zipfile.ZipFile(f"{folder}/{entry['file']}") as archive:
                text = archive.read("pass.json").decode("utf-8-sig")
            instance = json.loads(without_trailing_commas(text))
        except (zipfile.BadZipFile, KeyError, ValueError):
            continue
        result[entry["file"]] = violations(validator, instance)
    print(json.dumps(result, indent=1, sort_keys=True))


main()
