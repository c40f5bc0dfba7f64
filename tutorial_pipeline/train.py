"""BPE training for big corpora: the lesson's trainer, with the pre-tokens counted in workers.

Counting the pre-tokens is the one step of `tutorial_lib.bpe.trainer.train_bpe` that does not
depend on the others, and on a big corpus it is where the time goes (the regex runs over every
character). Here the texts are cut into batches of about `corpus.CHUNK_SIZE` characters, each batch
is counted by the lesson's own `corpus.count_pretokens` in one of `workers` processes
(`workers.map_in_workers`: Ctrl-C safe, no process outlives the pool), and the batches' counts are
added up in batch order. That gives the same Counter, order of first occurrence included, as one
process counting the whole corpus, so the lesson's set-up and merge loop (`trainer.start_training`,
`trainer.learn_merges`) learn the same merges from it: the result does not depend on `workers`.

A script that trains with `workers > 1` must call `train_bpe` under `if __name__ == "__main__":`
(every worker is a new Python that imports the script first); one that does not fails at once with
an error that says so.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from functools import partial

from tqdm.auto import tqdm

from tutorial_lib._check_data import check_bool
from tutorial_lib._checks import check_int
from tutorial_lib.bpe import corpus, trainer
from tutorial_lib.bpe.corpus import TextSource
from tutorial_lib.bpe.pretokenize import GPT2_PATTERN, check_special_tokens, compile_pattern
from tutorial_lib.bpe.trainer import ByteVocab, Merges
from tutorial_pipeline.workers import MAX_WORKERS, batches, map_in_workers


def count_pretokens(texts: Iterable[str], special_tokens: Iterable[str] = (),
                    pattern: str = GPT2_PATTERN, *, workers: int = 1, progress: bool = False
                    ) -> Counter[bytes]:
    """`corpus.count_pretokens`, with batches of texts counted in `workers` processes.

    With `workers == 1` it is the lesson's function itself. Otherwise each batch of about
    CHUNK_SIZE characters is counted in a worker and the counts are added up in batch order, so
    the result does not depend on which process finished first. An error in a worker (text the
    pattern does not cover, a lone surrogate) is raised here, as the lesson's function raises it.
    """
    special_tokens = check_special_tokens(special_tokens)
    compile_pattern(pattern)  # a bad pattern fails here, not in every worker process
    workers = check_int(workers, "workers", low=1, high=MAX_WORKERS)
    check_bool(progress, "progress")
    if workers == 1:
        return corpus.count_pretokens(texts, special_tokens, pattern, progress=progress)
    count = partial(corpus.count_pretokens, special_tokens=special_tokens, pattern=pattern)
    tasks = tqdm(batches(texts, corpus.CHUNK_SIZE), desc="pre-tokenizing", unit="batch",
                 disable=not progress)
    counts: Counter[bytes] = Counter()
    # Results come back in task order: a pre-token first seen in an earlier batch comes first.
    for batch_counts in map_in_workers(count, tasks, workers, job="pre-tokenization",
                                       caller="train_bpe"):
        counts.update(batch_counts)
    return counts


def train_bpe(texts_or_path: TextSource, vocab_size: int, special_tokens: Iterable[str] = (),
              pattern: str = GPT2_PATTERN, *, progress: bool = False, workers: int = 1
              ) -> tuple[ByteVocab, Merges]:
    """`trainer.train_bpe` with the pre-tokens counted in `workers` processes: the same result for
    any number of them.

    Arguments as `trainer.train_bpe`; `workers` is checked first, before any text is read.
    """
    workers = check_int(workers, "workers", low=1, high=MAX_WORKERS)
    count = partial(count_pretokens, workers=workers)
    vocab, words, freqs, num_merges = trainer.start_training(
        texts_or_path, vocab_size, special_tokens, pattern, progress=progress, count=count)
    return trainer.learn_merges(vocab, words, freqs, num_merges, progress=progress)
