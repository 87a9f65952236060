"""CSV files, the Markdown report and the plots."""
import csv
import json
import os


def write_csv(out, res):
    for name, rows in res.tables.items():
        if not rows:
            continue
        keys = []
        for r in rows:
            for k in r:
                if k not in keys:
                    keys.append(k)
        with open(os.path.join(out, name + ".csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=keys)
            w.writeheader()
            for r in rows:
                w.writerow({k: (repr(v) if isinstance(v, tuple) else v) for k, v in r.items()})


def write(out, res, meta):
    write_csv(out, res)
    with open(os.path.join(out, "meta.json"), "w") as f:
        json.dump({"meta": meta, "notes": res.notes}, f, indent=2, default=str)
    from . import markdown
    markdown.write(out, res, meta)


def _value(v):
    for cast in (int, float):
        try:
            return cast(v)
        except ValueError:
            pass
    return v


def load(out):
    """Results and meta of a finished run, read back from its CSV files and meta.json."""
    from .phases import Results
    res = Results()
    for name in res.tables:
        path = os.path.join(out, name + ".csv")
        if os.path.exists(path):
            with open(path, newline="") as f:
                res.tables[name] = [{k: _value(v) for k, v in r.items()} for r in csv.DictReader(f)]
    with open(os.path.join(out, "meta.json")) as f:
        j = json.load(f)
    res.notes = j["notes"]
    return res, j["meta"]


def rewrite(out):
    """Writes the report and the plots again from a run's CSV files (after a change to the report's code)."""
    res, meta = load(out)
    from . import markdown
    markdown.write(out, res, meta)
