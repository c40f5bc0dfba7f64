"""tutorial_lib: the computation behind the 分词与序列打包 notebooks.

One module per concept (data, text, bpe_toy, pretokenize, bpe, plotting, widgets, exercises, ...);
notebooks import what they teach from the module of the same name.
"""

__version__ = "0.1.0"
