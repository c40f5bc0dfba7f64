"""What a build killed outright (SIGKILL, a power cut) leaves beside its prefix: temporary files, and a
Dask client's shard directory. `verify PREFIX` removes them too, as the next build would, and says so;
only names this tool gives its own temporaries, of writers on this machine that are gone."""

import errno
import os
import socket
from pathlib import Path

import pytest

from tutorial_pipeline import cli, dataset_files, distributed
from tutorial_pipeline import files as _files
from tutorial_pipeline.dataset import write_dataset

DEAD = 2**22 + 12345  # above Linux's default pid_max: no process has it
posix_only = pytest.mark.skipif(os.name != "posix", reason="a pid is only asked about on POSIX")


def temporary(target, pid=DEAD, machine=None):
    """A name `files.temporary_name` gives a temporary file of `target`, as if `pid` on `machine` wrote it."""
    here = _files._machine_and_boot()[0]
    name = _files.temporary_name(Path(target)).name
    return name.replace(f".{os.getpid()}-{here}-", f".{pid}-{machine or here}-", 1)


def shard_directory(pid=DEAD, host=None, tail="k2_x9q0a"):
    """The name `distributed` gives a shard directory of the prefix "d" (`tempfile.mkdtemp`'s tail)."""
    return f"d.shards-{host or socket.gethostname()}-{pid}-{tail}"


@posix_only
def test_verify_removes_what_killed_builds_left_and_says_what(tmp_path, capsys):
    write_dataset(tmp_path / "d", [[1, 2, 3]])
    dataset = sorted(p.name for p in tmp_path.iterdir())
    stale = [temporary(f"d.{suffix}") for suffix in ("bin", "idx", "manifest.json", "pair.json")]
    for name in stale:
        (tmp_path / name).write_bytes(b"x")
    (tmp_path / shard_directory()).mkdir()
    (tmp_path / shard_directory() / "00000-file0-bytes0-9.bin").write_bytes(b"x")
    other = "0" * 8 if _files._machine_and_boot()[0] != "0" * 8 else "1" * 8
    kept = [temporary("d.bin", pid=os.getpid()),  # a build still running
            temporary("d.bin", machine=other),  # another machine's: it cannot be asked
            temporary("e.bin"), ".d.bin.tmp", "d.bin.tmp", f".d.bin.{DEAD}.tmp",  # another prefix, other names
            shard_directory(pid=os.getpid()), shard_directory(tail="mine"), shard_directory(host="elsewhere")]
    for name in kept:
        if ".shards-" in name:
            (tmp_path / name).mkdir()
        else:
            (tmp_path / name).write_bytes(b"x")
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "keep.txt").write_bytes(b"x")
    (tmp_path / shard_directory(tail="linked00")).symlink_to(tmp_path / "mine")  # named as ours, a link
    (tmp_path / shard_directory(tail="a_file00")).write_bytes(b"x")  # named as ours, not a directory
    kept += ["mine", shard_directory(tail="linked00"), shard_directory(tail="a_file00")]

    assert cli.main(["verify", "--quiet", str(tmp_path / "d")]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err == [f"tutorial-megatron: warning: removed 4 temporary file(s) of {str(tmp_path / 'd')!r} left by "
                   f"builds that were killed: {', '.join(sorted(stale))}",
                   f"tutorial-megatron: warning: removed 1 shard directory of {str(tmp_path / 'd')!r} left by "
                   f"builds that were killed: {shard_directory()}"]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(dataset + kept)
    assert (tmp_path / "mine" / "keep.txt").exists()


@posix_only
def test_verify_removes_them_where_a_killed_first_build_left_no_dataset(tmp_path, capsys):
    (tmp_path / temporary("d.bin")).write_bytes(b"x")
    with pytest.raises(SystemExit) as exit:
        cli.main(["verify", str(tmp_path / "d")])
    err = capsys.readouterr().err
    assert exit.value.code == 2 and "no dataset at" in err and "removed 1 temporary file(s)" in err
    assert list(tmp_path.iterdir()) == []


@posix_only
@pytest.mark.parametrize("where", ["temporary files", "shard directories"])
def test_verify_goes_on_when_it_cannot_remove_them(tmp_path, capsys, monkeypatch, where):
    write_dataset(tmp_path / "d", [[1, 2, 3]])
    if where == "temporary files":
        def read_only(target):
            raise OSError(errno.EROFS, "Read-only file system")

        monkeypatch.setattr(dataset_files, "remove_stale_temporaries", read_only)
    else:
        (tmp_path / shard_directory()).mkdir()
        monkeypatch.setattr(distributed.os, "access", lambda path, mode: False)
    assert cli.main(["verify", "--quiet", str(tmp_path / "d")]) == 0
    [warning] = capsys.readouterr().err.splitlines()
    assert warning.startswith(f"tutorial-megatron: warning: could not remove what killed builds of "
                              f"{str(tmp_path / 'd')!r} left (")
    assert warning.endswith("); the next build of it removes it")


def test_the_help_of_verify_says_so(capsys):
    with pytest.raises(SystemExit):
        cli.main(["verify", "--help"])
    assert "shard directories that builds of PREFIX killed on this machine left" in " ".join(
        capsys.readouterr().out.split())
