"""Write data/tokenizers/course_bpe_4096.json, the packing chapters' tokenizer, and print its sha256.

Run from the repository root after changing the recipe in tutorial_lib/tokenization/course_tokenizer.py,
then record the printed sha256 in tutorial_lib/data.py (COURSE_TOKENIZER) and data/PROVENANCE.md.
"""

import hashlib

from tutorial_lib import data
from tutorial_lib.tokenization import course_tokenizer

if __name__ == "__main__":
    path = course_tokenizer.train().save(data.DATA_DIR / data.COURSE_TOKENIZER[0])
    print(path, path.stat().st_size, "bytes, sha256", hashlib.sha256(path.read_bytes()).hexdigest())
