import matplotlib.pyplot as plt
import pytest


@pytest.fixture
def refused_before_drawing():
    """`check(draw, error, words)`: `draw()` raises `error` whose message holds `words`, and no
    figure was made first, so bad data never leaves a half-drawn figure behind."""

    def check(draw, error, words):
        before = plt.get_fignums()
        with pytest.raises(error) as info:
            draw()
        assert words in str(info.value)
        assert plt.get_fignums() == before

    return check
