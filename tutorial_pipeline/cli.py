"""The command line: `python -m tutorial_pipeline build|verify` (installed as `tutorial-megatron`).

`build` runs `local.build` (or, with --scheduler, `distributed.build_on` on a Dask cluster) and
`verify` checks a dataset against its manifest. Bad usage exits with 2, a bad input or a dataset
that does not match its manifest with 1, a signal with 128 + its number.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading
import warnings

from tutorial_lib import data
from tutorial_lib.packing.megatron import bin_path, idx_path
from tutorial_pipeline import dataset_files, dataset_manifest, engines
from tutorial_pipeline.golden import load_tokenizer
from tutorial_pipeline.dataset import prefix_problem, verify_dataset
from tutorial_pipeline.local import DTYPE_NAMES, WORKERS_FROM_BYTES, BuildSummary, build
from tutorial_pipeline.workers import MAX_WORKERS


def main(argv: list[str] | None = None) -> int:
    """`build` and `verify` from the command line: bad usage exits with 2 (argparse), a bad input
    or a dataset that does not match its manifest with 1.

    Ctrl-C (SIGINT), SIGTERM and SIGHUP stop a command the same way: a build writes nothing, and the
    exit code is 128 + the signal's number, as a shell reports a process killed by it. A signal that
    was ignored when the command started (a background job, nohup) stays ignored.
    """
    parser = _parser()
    args = parser.parse_args(argv)
    received, previous = _stop_on_signals()
    try:
        with warnings.catch_warnings():  # e.g. stale temporary files removed: one line, no source
            warnings.showwarning = lambda message, *_: print(f"{parser.prog}: warning: {message}",
                                                             file=sys.stderr)
            report = _build(args) if args.command == "build" else _verify(args)
    except FileNotFoundError as e:
        parser.error(str(e))  # a file that is not there is bad usage: exit code 2
    except (OSError, ValueError, RuntimeError) as e:
        print(f"{parser.prog}: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        signum = received[0] if received else signal.SIGINT
        how = "interrupted" if signum == signal.SIGINT else f"stopped by {signum.name}"
        done = "nothing was written" if args.command == "build" else "not verified"
        print(f"{parser.prog}: {how}; {done}", file=sys.stderr)
        return 128 + signum
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    print(report)
    return 0


def _build(args: argparse.Namespace) -> BuildSummary:
    tokenizer = load_tokenizer(args.tokenizer)
    options = dict(split=args.split, eod=args.eod, dtype=args.dtype, progress=not args.quiet,
                   engine=args.engine)
    if args.scheduler is None:
        summary = build(args.files, tokenizer, args.output, workers=args.workers, **options)
    else:
        from tutorial_pipeline.distributed import (
            build_on,  # the same dataset, from a Dask cluster's tasks
        )

        if args.workers != 1:
            raise ValueError("--workers counts processes on this machine; with --scheduler the "
                             "cluster's workers encode: drop one of the two")
        summary = build_on(args.scheduler, args.files, tokenizer, args.output, **options)
    if args.split not in SPLIT_NAMES and 0 < summary.documents <= len(args.files):
        warnings.warn(f"--split {args.split!r} gave {summary.documents} document(s) from "
                      f"{len(args.files)} file(s): the separator was probably never found, so "
                      f"each file is one document; check SEP (in it {', '.join(ESCAPES_HELP)} "
                      "are escapes)")
    return summary


def _verify(args: argparse.Namespace) -> str:
    """Print the manifest of `args.prefix` (before the checksums, which take a while), then check
    the dataset against it. Nothing at the prefix is bad usage; a missing part, a bad manifest or
    a checksum that differs is a bad dataset. What killed builds of the prefix left is removed
    first (`_remove_leftovers`)."""
    prefix = args.prefix
    parts = (bin_path(prefix), idx_path(prefix), dataset_manifest.manifest_path(prefix))
    _remove_leftovers(prefix)
    if not any(os.path.lexists(path) for path in parts):
        raise FileNotFoundError(f"no dataset at {prefix}: none of {', '.join(map(str, parts))}")
    try:
        manifest = dataset_manifest.read(prefix)
        if manifest is not None:
            print(dataset_manifest.describe_manifest(manifest), flush=True)
        verify_dataset(prefix, checksums=not args.no_checksums, progress=not args.quiet)
    except FileNotFoundError as e:
        raise ValueError(str(e)) from None
    if args.no_checksums:
        return (f"{prefix}: the dtype, the counts and the sizes match the manifest (checksums not "
                "read: --no-checksums)")
    return (f"{prefix}: the dtype, the counts, the sizes and the sha256 of .bin and .idx match the "
            "manifest")


def _remove_leftovers(prefix: str) -> None:
    """Remove what builds of `prefix` that were killed (SIGKILL, a power cut: no clean-up ran) left,
    as the next build of it would: their temporary files (`dataset_files.remove_stale_files`) and
    a Dask build's shard directories (`distributed.remove_stale_shard_directories`). Only names
    this tool gives its own temporaries, of writers on this machine that are gone, are removed,
    each time with a warning that names them; one that cannot be removed (a read-only mount) is a
    warning too: verifying only reads, and goes on."""
    from tutorial_pipeline import distributed  # (it imports dask only to build)

    try:
        dataset_files.remove_stale_files(prefix, (bin_path(prefix), idx_path(prefix)))
        distributed.remove_stale_shard_directories(prefix)
    except OSError as e:
        warnings.warn(f"could not remove what killed builds of {prefix!r} left ({e}); the next "
                      "build of it removes it")


def _stop_on_signals() -> tuple[list[signal.Signals], dict[signal.Signals, object]]:
    """Turn the first SIGINT, SIGTERM or SIGHUP into a KeyboardInterrupt, so that each cleans up as
    Ctrl-C does; later ones are only noted, so that they cannot cut the clean-up short. Returns
    the signals received and the handlers to put back."""
    received: list[signal.Signals] = []

    def stop(signum: int, _frame: object) -> None:
        received.append(signal.Signals(signum))
        if len(received) == 1:
            raise KeyboardInterrupt

    previous = {}
    if threading.current_thread() is not threading.main_thread():
        return received, previous  # only the main thread may set handlers
    names = ("SIGINT", "SIGTERM", "SIGHUP")  # Windows has no SIGHUP
    for signum in [getattr(signal, name) for name in names if hasattr(signal, name)]:
        if signal.getsignal(signum) is not signal.SIG_IGN:
            previous[signum] = signal.signal(signum, stop)
    return received, previous


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="tutorial-megatron",
        description="Tokenize corpus files into a Megatron .bin/.idx dataset with its manifest, "
                    "or verify a dataset against its manifest.")
    commands = parser.add_subparsers(dest="command", required=True)
    command = commands.add_parser(
        "build", help="corpus files -> PREFIX.bin, PREFIX.idx and PREFIX.manifest.json",
        description="Each document becomes one sequence: its token ids, then EOD.")
    command.add_argument("--tokenizer", required=True,
                         help="a tokenizer file written by manifest.save, or 'gpt2' for the "
                              "bundled GPT-2 files")
    command.add_argument("--output", required=True, metavar="PREFIX", type=_output_prefix,
                         help="DIR/NAME, e.g. out/tinystories: writes NAME.bin, NAME.idx and "
                              "NAME.manifest.json in DIR (an existing directory)")
    command.add_argument("--workers", type=_worker_count, default=1,
                         help=f"encoding processes, at most {MAX_WORKERS} (default 1); files "
                              "of less text in all than the engine's threshold (MiB: "
                              + ", ".join(f"{name} {size >> 20}" for name, size
                                          in WORKERS_FROM_BYTES.items())
                              + ") are encoded in one process, since starting workers costs "
                                "more than they save there")
    command.add_argument("--engine", choices=list(engines.ENGINES), default="ours",
                         help="what encodes: ours (default, the course's encoder), tiktoken or "
                              "huggingface (the tokenizer exported to that library, faster: a "
                              "document where it could differ from ours is encoded by ours, so the "
                              "ids are the same; a sample is compared as well)")
    command.add_argument("--scheduler", metavar="ADDRESS",
                         help="a Dask scheduler (tcp://host:8786): shards of the files become "
                              "tasks on its cluster, merged here (tutorial_pipeline.distributed)")
    command.add_argument("--split", default="line", metavar="line|blank|SEP", type=_split,
                         help="documents are lines (default), paragraphs between empty lines, or "
                              "the text between occurrences of the string SEP, e.g. "
                              "'<|endoftext|>'. In SEP, " + ", ".join(ESCAPES_HELP) + " are read "
                              "as escapes (\\r\\n as \\n: the text's line ends are \\n); "
                              "any other backslash is refused")
    command.add_argument("--dtype", choices=["auto", *DTYPE_NAMES], default="auto",
                         help="token dtype; auto: uint16 if the vocabulary has fewer than 65,500 "
                              "ids, else int32")
    command.add_argument("--eod", default=data.ENDOFTEXT,
                         help=f"the special token ending each document (default {data.ENDOFTEXT})")
    command.add_argument("--quiet", action="store_true", help="no progress bar")
    command.add_argument("files", nargs="+", metavar="FILES", help="UTF-8 text files")
    command = commands.add_parser(
        "verify", help="print PREFIX.manifest.json and check the dataset against it",
        description="Prints the manifest, then checks the dataset against it: the dtype (and that "
                    "it holds the vocabulary), the counts, the sizes and the sha256 of every byte "
                    "of .bin and .idx. Exits with 0 when all match, 1 with the reason when not. "
                    "First removes, with a warning naming them, the temporary files and Dask "
                    "shard directories that builds of PREFIX killed on this machine left (SIGKILL, "
                    "a power cut); those of a build still running, or of another machine, stay.")
    command.add_argument("prefix", metavar="PREFIX", help="reads PREFIX.bin, .idx, .manifest.json")
    command.add_argument("--no-checksums", action="store_true",
                         help="the cheap checks only: nothing is read but the manifest and headers")
    command.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def _output_prefix(text: str) -> str:
    """--output: a prefix that names files (`dataset.prefix_problem`, hidden names refused too),
    checked before anything is read."""
    problem = prefix_problem(text, hidden=False) if text else "it is empty"
    if problem is not None:
        raise argparse.ArgumentTypeError(
            f"expected --output DIR/NAME, e.g. out/tinystories (writes out/tinystories.bin, .idx "
            f"and .manifest.json), got {text!r}: {problem}")
    return text


SPLIT_NAMES = ("line", "blank")
ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\"}  # what follows "\\"
ESCAPES_HELP = [r"\n", r"\t", r"\r", r"\0", r"\\ (a backslash)"]


def _split(text: str) -> str:
    """--split: "line", "blank", or a separator in which the escapes of ESCAPES are read (a shell
    passes '\\n' as a backslash and an n); "\\r\\n" becomes "\\n", as the text's line ends do."""
    if text in SPLIT_NAMES:
        return text
    pieces, rest = [], text
    while "\\" in rest:
        before, _, rest = rest.partition("\\")
        if rest[:1] not in ESCAPES:  # quoted as typed: a repr would double each backslash
            what = f"the unknown escape \\{rest[0]}" if rest else "a backslash at its end"
            raise argparse.ArgumentTypeError(
                f"'{text}' has {what}: the escapes are {', '.join(ESCAPES_HELP)}; write \\\\ "
                "for a backslash")
        pieces += [before, ESCAPES[rest[:1]]]
        rest = rest[1:]
    separator = "".join([*pieces, rest]).replace("\r\n", "\n")
    if not separator:
        raise argparse.ArgumentTypeError("must not be empty: give line, blank or a separator")
    return separator


def _worker_count(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= MAX_WORKERS:
        raise argparse.ArgumentTypeError(f"must be an int from 1 to {MAX_WORKERS}, got {text!r}")
    return int(text)


if __name__ == "__main__":
    sys.exit(main())
