"""The course map: every chapter with its notebook, the library modules it teaches, its widgets and
exercises.

CHAPTERS is the one registry of chapters. Notebook 00 shows it as the course map, README's notebook
table is generated from it (`python -m tutorial_course.chapters`), the exercise modules are found
through it, and the tests hold it to the notebooks: a chapter's modules and widgets are what its
notebook imports, and a notebook only uses modules that it or an earlier chapter teaches. Adding a
chapter means its notebook, its library module(s), `exercises/chNN.py`, `solutions/chNN.py` and one
entry here. """

from __future__ import annotations

import importlib.metadata
import platform
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

NOTEBOOK_DIR = Path(__file__).resolve().parent.parent / "notebooks"
PARTS = ("导读", "第一部分 分词", "第二部分 打包", "第三部分 进阶")


@dataclass(frozen=True)
class Chapter:
    number: str
    stem: str  # notebook file name without .ipynb
    title: str
    title_en: str
    part: str  # one of PARTS
    summary: str  # README's line for the chapter, after its title
    modules: tuple[str, ...]  # the lesson modules it teaches, under tutorial_lib
    widgets: tuple[str, ...]  # the functions of tutorial_lib.show.widgets.* its notebook shows
    calls: tuple[str, ...] = ()  # production modules its notebook calls, under tutorial_pipeline

    @property
    def available(self) -> bool:
        return (NOTEBOOK_DIR / f"{self.stem}.ipynb").is_file()

    @property
    def exercise_module(self) -> str:
        """Where the chapter's checked exercises are registered (mirrors solutions/chNN.py)."""
        return f"tutorial_course.exercises.ch{self.number}"


CHAPTERS = [
    Chapter(
        "00",
        "00_intro",
        "导读与环境自检",
        "Introduction and environment check",
        PARTS[0],
        "cl100k 怎样切数字、为什么倒不过来一个词、同一句中文为什么更贵；课程路线、运行方式、"
        "环境检查、第一个练习",
        ("data",),
        ("utf8_explorer",),
    ),
    Chapter(
        "01",
        "01_char_word_subword",
        "字符、词与子词",
        "Characters, words and subwords",
        PARTS[1],
        "《时间机器》的清洗与 `Vocab`，词表大小、序列长度、未登录词率和 Zipf 分布的实测对比",
        ("text.d2l", "text.compare", "text.measure"),
        ("segmentation_explorer",),
    ),
    Chapter(
        "02",
        "02_bpe_step_by_step",
        "BPE 逐步合并",
        "BPE step by step",
        PARTS[1],
        "滑块逐步查看计数与合并、平局规则、按排名编码、`<unk>` 与打乱合并顺序的实验，从 `</w>` "
        "到前导空格；"
        "亲手写出 BPE 训练循环",
        ("bpe.bpe_toy",),
        ("bpe_pair_rows", "bpe_steps", "bpe_trace_rows"),
    ),
    Chapter(
        "03",
        "03_chinese_corpora",
        "中文语料",
        "Chinese corpora",
        PARTS[1],
        "鲁迅小说的字符覆盖率、UTF-8 字节视角、GPT-2 正则对汉字的影响，与 sentencepiece、cl100k "
        "的压缩率对比",
        ("text.characters", "bpe.pretokenize", "unigram.model", "text.model_tokenizers"),
        ("tokenizer_comparison",),
    ),
    Chapter(
        "04",
        "04_vocab_size",
        "词表大小",
        "Vocabulary size",
        PARTS[1],
        "词表 = 初始符号 + 合并次数的直线及其失效处；英文与中文的压缩率随词表增大的边际收益，"
        "留出文本上的词表"
        "利用率与罕见 token（含 cl100k），领域错配，词嵌入参数量与显存，"
        "常被引用的“嵌入占比”表的复核；亲手用一次训练的合并表前缀量出留出文本上的整条压缩率曲线",
        ("bpe.vocab_size", "bpe.embedding"),
        ("vocab_size_explorer",),
    ),
    Chapter(
        "05",
        "05_byte_level_bpe",
        "字节级 BPE（GPT 的做法）",
        "Byte-level BPE as GPT does it",
        PARTS[1],
        "为什么从字节出发，边生成边解码，提示词结尾的不稳定 token 与 token healing，GPT-2 / "
        "GPT-4 / nanochat 三种预切分与数字分组，Unicode 版本差异（U+0C5C），特殊 token 的约定；"
        "动手写一个字节级 BPE，再装入 cl100k 的排名，得到与 tiktoken 相同的 id；清单与重放确定性，"
        "官方 GPT-2 文件",
        ("bpe.tokenizer", "bpe.fast_encode", "bpe.formats", "bpe.stream_encode", "bpe.vocab_check",
         "bpe.token_healing", "bpe.tiktoken_probe", "contract.manifest"),
        ("pretokenize_explorer",),
    ),
    Chapter(
        "06",
        "06_fast_trainer",
        "训练器为什么慢、怎样变快",
        "Why a naive trainer is slow and how to make it fast",
        PARTS[1],
        "从逐次重数、预切分聚合、倒排索引增量更新到惰性堆，每一步在英文和中文上实测；"
        "一次合并要改多少计数、"
        "为什么中文不同；与 Hugging Face tokenizers 并排；亲手写增量更新、惰性堆，再拼成增量训练器"
        "（检查器数它改写计数的次数，逐次重数的训练器通不过）",
        ("bpe.trainer", "bpe.merge", "bpe.corpus", "bpe.trainer_stages"),
        ("merge_work_explorer", "merge_work_html"),
    ),
    Chapter(
        "07",
        "07_padding_masks",
        "填充与掩码",
        "Padding and masks",
        PARTS[2],
        "左右填充、`pad_to_multiple_of` 与截断，从长度而不是 pad id 建注意力掩码，-100 标签，"
        "对话的角色 token 与监督掩码（只监督助手的话），因果 + 填充掩码热图，忘了掩码时注意力算出了"
        "什么，分桶在真实长度分布上省下多少填充；打包几章共用的分词器",
        ("packing.batch", "packing.masks", "bpe.chat", "bpe.course_tokenizer"),
        ("batch_grid_html", "bucketing_explorer"),
    ),
    Chapter(
        "08",
        "08_packing",
        "打包策略与利用率",
        "Packing strategies and utilization",
        PARTS[2],
        "pad、greedy、concat_chunk、FFD、BFD、nanochat 的 best-fit crop 在 TinyStories、鲁迅段落、"
        "Tatoeba 上"
        "的利用率、填充与裁剪；检验“25% / 92% / 98%”之类的常见数字；按文档着色的打包控件；BFD "
        "与逐行首次适配"
        "的速度",
        ("packing.strategies", "packing.fit_trees"),
        ("packed_rows_html", "packing_explorer"),
    ),
    Chapter(
        "09",
        "09_document_masks",
        "文档掩码",
        "Document masks",
        PARTS[2],
        "一行打包数据的因果、填充与文档掩码热图，重新计数的 position ids，FlashAttention 的 "
        "`cu_seqlens`，"
        "numpy 注意力证明加了文档掩码后每篇文档的输出与单独计算相同，跨文档的标签与泄漏随行长的变化"
        "",
        ("packing.attention",),
        ("document_mask_explorer",),
    ),
    Chapter(
        "10",
        "10_megatron_mmap",
        "Megatron .bin/.idx 与 mmap",
        "The Megatron .bin/.idx format via mmap",
        PARTS[2],
        "用 GPT-2 分词器把语料写成 `.bin/.idx`，逐字节解析 `.idx` 并与常见的简化版对照，token 的 "
        "dtype；mmap "
        "与 `np.fromfile` 的打开耗时、常驻内存和多进程共享；训练中覆盖数据文件的三种后果（改名、"
        "原地改写、"
        "截断后 SIGBUS）；Megatron 在读数据时拼接切出的训练样本（EOD 处重置位置、损失掩码）与 BFD "
        "打包对比；"
        "分片写入再合并；比一台机器还大的数据集：按字节区间切分片、Megatron 的 `--partitions` 与 "
        "`merge_datasets.py`、在 Dask 集群上构建（与单进程逐字节相同）",
        ("packing.megatron", "packing.megatron_format", "packing.bin_ids", "packing.mmap_demo",
         "packing.gpt_samples"),
        ("sample_explorer", "sequence_explorer"),
        ("dataset", "local", "distributed"),
    ),
    Chapter(
        "11",
        "11_unigram_wordpiece",
        "Unigram 与 WordPiece",
        "Unigram and WordPiece",
        PARTS[3],
        "同一份玩具语料上 BPE、WordPiece、Unigram 各学到什么；Unigram 的切分网格、Viterbi、"
        "手算一步 EM、EM 与剪枝的似然曲线、剪枝删掉了什么、采样（subword regularization）与 "
        "n-best，与 SentencePiece 的 Unigram 训练器对照；WordPiece 的打分规则 "
        "freq(ab)/(freq(a)freq(b)) 与按频率合并的分歧，最长匹配编码与重放合并的不同，`[UNK]` 率"
        "与 BERT 为什么在每个汉字两边加空格，与 Hugging Face 的 id 逐一相同；SentencePiece "
        "在中文上的设置逐项实测（unigram 与 bpe、character_coverage、byte_fallback、数字拆分、"
        "nmt_nfkc、add_dummy_prefix、按文字切分）；“可逆”检验；亲手写 Viterbi、E 步的期望计数、"
        "一轮剪枝、WordPiece 的训练循环、"
        "WordPiece 的打分和最长匹配编码",
        ("wordpiece.model", "wordpiece.train", "unigram.sp_settings", "unigram.train",
         "unigram.lattice", "unigram.sample", "unigram.byte_fallback", "unigram.compare"),
        ("pruning_explorer",),
    ),
    Chapter(
        "12",
        "12_evaluating_tokenizers",
        "评估分词器",
        "Judging a tokenizer",
        PARTS[3],
        "为什么“每词 token 数”跨语言不公平、该用什么单位；FLORES 上 gpt2、cl100k、Qwen、"
        "DeepSeek 和课程 BPE 的 token 溢价分布（中位数、P90、最大值）与它对成本和上下文的意义；"
        "中英混合比例训练的 BPE 与 Unigram、词表按文字的构成与固定配额的代价；bits per byte "
        "与每 token 损失的对照；SuperBPE 的超词在中文上是否省 token；按领域的压缩表；"
        "大词表的嵌入参数；选分词器和语言看溢价分布与一句话的切分；亲手写溢价统计、token 的文字"
        "分类，从每个 token 的对数概率算每字节比特",
        ("evaluation.evaluate", "evaluation.mixes", "evaluation.bits_per_byte",
         "evaluation.superbpe"),
        ("premium_explorer",),
    ),
    Chapter(
        "13",
        "13_tokenizer_contract",
        "分词器即契约",
        "The tokenizer as a contract",
        PARTS[3],
        "只差归一化或一条合并的两个分词器让模型看到训练里没有的 id，摘要（digest）一眼分出它们；"
        "NFKC 在鲁迅、Tatoeba、FLORES 中文上改了什么，“café 必须 NFKC”实测，"
        "decode(encode(x)) == N(x) 对错两种配对；偏移画在汉字、emoji 和代码上，半个字符的 token；"
        "黄金向量逐类读、一处改动哪些类别抓住、分词器清单逐字段；数据集清单：另一个分词器的分片"
        "合并被拒、翻转一个字节被校验抓住、摘要该写在哪；解码错误策略与流式解码的 U+FFFD；"
        "把分词器带出去：导出成 tokenizer.json（tokenizers、transformers 载入后 id 相同，摘要往返"
        "不变）和 tiktoken 的 Encoding，导入 GPT-2、DeepSeek-V4、Qwen2.5，Qwen3.6 为什么被拒，"
        "流水线的 tiktoken 引擎；亲手写不变量检查、偏移，再用这两样拼出一条黄金向量",
        ("contract.normalize", "contract.normalize_cuts", "contract.normalization_effect",
         "contract.offsets", "contract.golden", "contract.stream_decode"),
        ("golden_explorer",),
        ("dataset", "dataset_manifest", "interop.hf_json", "interop.model_imports",
         "interop.tiktoken_export", "engines", "local"),
    ),
]


def readme_table() -> str:
    """README's notebook table, one row per available chapter (`python -m tutorial_course.chapters`
    prints it)."""
    rows = [f"| [`{c.stem}.ipynb`](notebooks/{c.stem}.ipynb) | {c.title}：{c.summary} |"
            for c in CHAPTERS if c.available]
    return "\n".join(["| 笔记本 | 内容 |", "|---|---|", *rows])


def course_map() -> list[tuple[str, str, str, str, str]]:
    """Rows (part, chapter, notebook, title, modules it teaches) of the course map notebook 00
    shows."""
    return [(c.part, c.number, f"{c.stem}.ipynb", f"{c.title}（{c.title_en}）",
             "、".join(c.modules)) for c in CHAPTERS]


PACKAGES = [
    "jupyterlab",
    "ipywidgets",
    "jupyterlab_widgets",
    "matplotlib",
    "numpy",
    "regex",
    "tqdm",
    "tokenizers",
    "tiktoken",
    "sentencepiece",
]


def package_versions() -> dict[str, str]:
    """Installed version of each package the notebooks rely on ("缺失" when it is not installed)."""
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = "缺失"
    return versions


def chinese_font_check() -> tuple[str, bool]:
    """Set up Chinese plotting, draw one Chinese label off-screen, and report (font, no glyph
    missing)."""
    import matplotlib.pyplot as plt

    from tutorial_lib.show.plotting import setup_chinese

    family = setup_chinese()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig, ax = plt.subplots(figsize=(2, 1))
        ax.set_title("分词与序列打包 −1")
        fig.canvas.draw()
        plt.close(fig)
    return family, not any("missing from font" in str(w.message) for w in caught)


def widgets_check() -> bool:
    """True when a widget can be built and its value round-trips inside this kernel."""
    import ipywidgets

    slider = ipywidgets.IntSlider(value=1, min=0, max=10)
    slider.value = 7
    return slider.value == 7


def environment_report() -> list[tuple[str, str]]:
    """Rows (item, status) for the self-check cell of notebook 00."""
    family, glyphs_ok = chinese_font_check()
    rows = [("Python", platform.python_version())]
    rows += [(name, version) for name, version in package_versions().items()]
    rows.append(("中文字体", f"{family}（{'字形完整' if glyphs_ok else '有缺字！'}）"))
    rows.append(("ipywidgets 控件", "正常" if widgets_check() else "异常"))
    return rows


if __name__ == "__main__":
    sys.stdout.write(readme_table() + "\n")
