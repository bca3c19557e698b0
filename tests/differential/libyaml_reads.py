#!/usr/bin/env python3
"""What libyaml (PyYAML's CSafeLoader) reads from manifest files, as JSON.

Kubernetes reads YAML through sigs.k8s.io/yaml and go-yaml, a port of libyaml; CSafeLoader is
the same C libyaml, so it tells which text is valid YAML and what it means.

    libyaml_reads.py [PATH ...] [--json-stream PATH ...]

Paths may also come on standard input, one a line, when none are given. Paths after
`--json-stream` are read as kubectl reads a file that starts with `{`: JSON values one after
another (Go's encoding/json Decoder), which YAML itself refuses (`{...}{...}`).

Prints one JSON list, an entry a file in input order:
    {"path", "reads", "error", "line", "objects": [...]}
Each object mirrors what ownerlint keeps of it (src/model.rs): apiVersion, kind, name, namespace,
uid and ownerReferences, with types as read: numbers as {"number": float}, mappings and lists
as {"type": "mapping" | "list"}.
"""

import json
import math
import sys

import yaml


class Loader(yaml.CSafeLoader):
    """CSafeLoader, with timestamps kept as text: go-yaml v2 reads them into strings."""


Loader.add_constructor(
    "tag:yaml.org,2002:timestamp", yaml.CSafeLoader.construct_yaml_str
)


def typed(value):
    """A value as JSON, keeping what type it was read as."""
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, (int, float)):
        number = float(value)
        return {"number": number if math.isfinite(number) else repr(number)}
    if isinstance(value, dict):
        return {"type": "mapping"}
    if isinstance(value, list):
        return {"type": "list"}
    return {"type": type(value).__name__}


def scalar(value):
    """A field ownerlint reads as text: any scalar but null (src/model.rs `string_field`)."""
    if value is None or isinstance(value, (dict, list)):
        return None
    return typed(value)


def owner_ref(entry):
    if not isinstance(entry, dict):
        return {"notAMapping": typed(entry)}
    keys = ["apiVersion", "kind", "name", "uid", "controller", "blockOwnerDeletion"]
    return {k: typed(entry[k]) for k in keys if k in entry}


def obj(node, api_version=None, kind=None):
    meta = node.get("metadata")
    meta = meta if isinstance(meta, dict) else {}
    refs = meta.get("ownerReferences")
    if isinstance(refs, list):
        refs = [owner_ref(r) for r in refs]
    elif refs is not None:
        refs = {"notAList": typed(refs)}
    api = scalar(node.get("apiVersion"))
    own_kind = scalar(node.get("kind"))
    return {
        "apiVersion": api if api is not None else api_version,
        "kind": own_kind if own_kind is not None else kind,
        "name": scalar(meta.get("name")),
        "namespace": scalar(meta.get("namespace")),
        "uid": scalar(meta.get("uid")),
        "ownerReferences": refs,
    }


def is_object(node):
    return (
        isinstance(node, dict)
        and isinstance(node.get("apiVersion"), str)
        and isinstance(node.get("kind"), str)
    )


def objects(document):
    """The objects of one document, as src/load/list.rs `collect_objects` finds them."""
    if isinstance(document, list):
        if any(is_object(item) for item in document):
            return [obj(item) for item in document if is_object(item)]
        return []
    if not isinstance(document, dict):
        return []
    kind = document.get("kind")
    kind = kind if isinstance(kind, str) else None
    items = document.get("items")
    listed = kind is not None and kind.endswith("List")
    if isinstance(items, list) and (listed or (kind is None and "apiVersion" not in document)):
        # A typed list (`PodList`) gives its items its kind, less `List`, and apiVersion.
        item_kind = (kind or "")[: -len("List")] or None
        api = document.get("apiVersion")
        item_api = api if item_kind and isinstance(api, str) else None
        return [
            obj(item, item_api, item_kind)
            for item in items
            if isinstance(item, dict)
            and (isinstance(item.get("kind"), str) or item_kind)
            and (isinstance(item.get("apiVersion"), str) or item_api)
        ]
    return [obj(document)] if is_object(document) else []


def json_stream(text):
    decoder = json.JSONDecoder()
    at = 0
    while True:
        while at < len(text) and text[at] in " \t\r\n\ufeff":
            at += 1
        if at == len(text):
            return
        value, at = decoder.raw_decode(text, at)
        yield value


def read(path, as_json_stream):
    result = {"path": path, "reads": True, "error": None, "line": None, "objects": []}
    with open(path, "rb") as f:
        data = f.read()
    try:
        # Read as ownerlint reads a file: UTF-8, a BOM at the start allowed.
        text = data.decode("utf-8")
        documents = json_stream(text) if as_json_stream else yaml.load_all(text, Loader=Loader)
        for document in documents:
            result["objects"].extend(objects(document))
    except UnicodeDecodeError as e:
        line = data[: e.start].count(b"\n") + 1
        result.update(reads=False, error=f"not UTF-8: {e.reason}", line=line)
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        line = mark.line + 1 if mark else None
        message = " ".join(str(p) for p in (e.context, e.problem) if p)
        result.update(reads=False, error=f"{type(e).__name__}: {message}", line=line)
    except (yaml.YAMLError, json.JSONDecodeError, RecursionError) as e:
        line = getattr(e, "lineno", None)
        result.update(reads=False, error=f"{type(e).__name__}: {e}", line=line)
    if not result["reads"]:
        result["objects"] = []
    return result


def main(args):
    if not args:
        args = [line.rstrip("\n") for line in sys.stdin if line.strip()]
    results, as_json_stream = [], False
    for arg in args:
        if arg == "--json-stream":
            as_json_stream = True
        else:
            results.append(read(arg, as_json_stream))
    json.dump(results, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    if not getattr(yaml, "__with_libyaml__", False):
        sys.exit("PyYAML is not built with libyaml (yaml.CSafeLoader is missing)")
    main(sys.argv[1:])
