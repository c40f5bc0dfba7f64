"""The course's colours, one home for all of them, so plots, widgets and the token view draw the
same thing the same way in every chapter: document k is DOCUMENTS[k % 8] in a mask heatmap, a
packed row and a sample, padding is always PADDING, a cross-document cell always LEAK."""

# Light backgrounds of token spans; the span's own dark text stays readable on them in light and
# dark themes.
TOKENS = ("#ffd7a8", "#bde0fe", "#c7f0c2", "#f9c6d3", "#e2d1f9", "#fff3a3", "#b9f2ef", "#f6d0b1")
# The text colour set with them: a span that inherited the page's text colour would be light on
# light in a dark theme.
TOKEN_INK = "#1a1a1a"

# An exercise verdict's box: (text, background, border), the text again set with its background.
VERDICTS = {
    "通过": ("#0b3d1a", "#e3f4e8", "#2e9e53"),
    "未通过": ("#5c0a0a", "#fde8e8", "#d63b3b"),
    "超时": ("#4d3300", "#fff2d6", "#d99a00"),
    "未完成": ("#1f2a44", "#e9eef7", "#6b7fa8"),
    "评分出错": ("#3d1a4d", "#f3e8f8", "#8e44ad"),  # a class's grading process that did not answer
}

# One colour per document (seaborn's "deep"); the first two are also the plots' first and second
# series.
DOCUMENTS = ("#4C72B0", "#DD8452", "#55A868", "#8172B3", "#937860", "#DA8BC3", "#CCB974", "#64B5CD")
LEAK = "#C44E52"  # attention that crosses from one document into another
PADDING = "#BBBBBB"
CUT = "#CC0000"  # the edge where a document is cut off: cropped, truncated or carried on
BLOCKED = "#FFFFFF"  # a mask cell that allows nothing
GUIDE = "#808080"  # reference and guide lines drawn over a plot (a ratio of 1, a chosen size)
BACKGROUND = "#FFFFFF"  # the paper behind a plot's own labels, e.g. a box of notes
