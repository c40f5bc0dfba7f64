"""Give the widgets stored in executed notebooks stable ids, so `make notebooks` is reproducible.

ipywidgets names every model with a random uuid, so each re-run would rewrite every widget reference
even when nothing changed. We rename the models reachable from the cell outputs in a fixed order
(outputs top to bottom, then the models they reference) and drop the state of models nothing displays.
"""

import json
import re
import sys
from pathlib import Path

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
REFERENCE = re.compile(r"IPY_MODEL_([0-9a-f]{32})")


def stabilise(nb: dict) -> dict:
    state = nb.get("metadata", {}).get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    roots = [out["data"][WIDGET_VIEW]["model_id"] for cell in nb["cells"] for out in cell.get("outputs", [])
             if WIDGET_VIEW in out.get("data", {})]
    order: list[str] = []
    queue = list(roots)
    while queue:
        model = queue.pop(0)
        if model in order or model not in state:
            continue
        order.append(model)
        queue.extend(REFERENCE.findall(json.dumps(state[model], sort_keys=True)))
    new_id = {old: f"{i:032x}" for i, old in enumerate(order, start=1)}
    if state:
        nb["metadata"]["widgets"][WIDGET_STATE]["state"] = {new_id[m]: state[m] for m in order}
    text = json.dumps(nb, ensure_ascii=False)
    text = re.sub(r"[0-9a-f]{32}", lambda m: new_id.get(m.group(0), m.group(0)), text)
    return json.loads(text)


if __name__ == "__main__":
    for name in sys.argv[1:]:
        path = Path(name)
        nb = stabilise(json.loads(path.read_text(encoding="utf-8")))
        tmp = path.with_suffix(".ipynb.tmp")
        tmp.write_text(json.dumps(nb, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        tmp.replace(path)
