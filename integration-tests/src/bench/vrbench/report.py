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
