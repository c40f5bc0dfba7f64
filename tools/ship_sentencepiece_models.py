"""Write data/sentencepiece/: every SentencePiece model chapter 11 trains, so that its Run All loads
them instead of training them (about half a minute saved on a 2-core machine).

It runs notebooks/11_unigram_wordpiece.ipynb with `sp_settings.train` wrapped: each training runs
for real (`shipped=False`) and, unless the chapter asked for a real training itself (where it
times one), its model is kept under its `training_key`. The directory then holds
exactly those models and MANIFEST.json (key -> name, options, number of lines, sha256); models of
trainings the chapter no longer does are removed. The notebook itself is not changed.

Run from the repository root after changing chapter 11's SentencePiece trainings, the corpora they
read, `sp_settings.BASE_OPTIONS` or the pinned sentencepiece version (a changed key is simply a
training the chapter does again at run time until this is run).
"""

import hashlib
import json
import sys
import tempfile
from pathlib import Path

import nbformat
from nbclient import NotebookClient

from tutorial_lib import data
from tutorial_lib.unigram import sp_settings

CHAPTER = Path("notebooks/11_unigram_wordpiece.ipynb")

RECORDING_CELL = '''
import json as _json
from pathlib import Path as _Path
from tutorial_lib.unigram import sp_settings as _sps

_train = _sps.train


def _recording_train(texts, options=None, *, name="model", shipped=True):
    model = _train(texts, options, name=name, shipped=False)
    if not shipped:  # a training the chapter times: it must run, never load
        return model
    lines = _sps._clean_lines(texts, "texts")
    key = _sps.training_key(lines, model.options)
    (_Path({out!r}) / f"{{key}}.model").write_bytes(model.processor.serialized_model_proto())
    with open(_Path({out!r}) / "recorded.jsonl", "a", encoding="utf-8") as f:
        f.write(_json.dumps({{"key": key, "name": name, "options": model.options,
                             "lines": len(lines)}}, ensure_ascii=False) + "\\n")
    return model


_sps.train = _recording_train
'''


def main() -> int:
    target = data.DATA_DIR / sp_settings.SHIPPED_DIR
    target.mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ship_sp_") as out:
        nb = nbformat.read(CHAPTER, as_version=4)
        nb.cells.insert(0, nbformat.v4.new_code_cell(RECORDING_CELL.format(out=out)))
        NotebookClient(nb, kernel_name="python3", timeout=1800,
                       resources={"metadata": {"path": str(CHAPTER.parent)}}).execute()
        manifest = {}
        for line in Path(out, "recorded.jsonl").read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            key = entry.pop("key")
            model = Path(out, f"{key}.model").read_bytes()
            # a half-written file fails its sha256 when read, so a plain write is safe here
            (target / f"{key}.model").write_bytes(model)
            manifest[key] = {**entry, "sha256": hashlib.sha256(model).hexdigest()}
    for stale in target.glob("*.model"):
        if stale.stem not in manifest:
            stale.unlink()
    data.write_atomically(target / "MANIFEST.json",
                          json.dumps(manifest, ensure_ascii=False, indent=1, sort_keys=True) + "\n")
    size = sum(p.stat().st_size for p in target.iterdir())
    print(f"{len(manifest)} models, {size:,} bytes in {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
