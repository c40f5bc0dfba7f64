"""Write data/tokenizers/course_bpe_4096.json, the packing chapters' tokenizer, with its golden vectors
beside it (course_bpe_4096.golden.jsonl, whose sha256 the tokenizer's manifest records), and print both
sha256s.

Run from the repository root after changing the recipe in tutorial_lib/bpe/course_tokenizer.py or
the inputs of tutorial_lib/contract/golden.py, then record the printed sha256s in tutorial_lib/data.py
(COURSE_TOKENIZER, COURSE_GOLDEN) and data/PROVENANCE.md.
"""

from tutorial_lib import data
from tutorial_lib.bpe import course_tokenizer
from tutorial_lib.contract import golden, manifest

if __name__ == "__main__":
    tokenizer = course_tokenizer.train()
    vectors = golden.write(tokenizer, data.DATA_DIR / data.COURSE_GOLDEN[0])
    path = manifest.save(golden.with_golden_vectors(tokenizer, vectors),
                         data.DATA_DIR / data.COURSE_TOKENIZER[0])
    for written in (vectors, path):
        print(written, written.stat().st_size, "bytes, sha256",
              data.file_sha256(written))
