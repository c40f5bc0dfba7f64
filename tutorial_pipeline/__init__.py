"""tutorial_pipeline: the production path, corpus files to a Megatron dataset at scale, and the
tokenizer taken to other tools. Chapters 10 and 13 call it; no chapter asks a learner to read it.

- `local` (one machine, `workers` processes) and `distributed` (a Dask cluster) build a dataset;
  `cli` is their command line (`python -m tutorial_pipeline build|verify`, `tutorial-megatron`);
- `engines`: what encodes (ours, or the tokenizer exported to tiktoken or Hugging Face);
- `corpus_files`: corpus files read as documents, strictly, in byte ranges;
- `dataset`: the lesson's Megatron builder and reader made safe (`AtomicDatasetBuilder`,
  `CheckedDataset`) and `write_dataset`, `merge_datasets`, `verify_dataset`, over `files` (atomic
  files, locks, stale temporaries), `dataset_files` (the .bin/.idx pair replaced as one) and
  `dataset_manifest` (what a dataset records of its tokenizer and corpus);
- `workers`: the Ctrl-C-safe process pool;
- `interop`: tokenizer.json both ways, the export to tiktoken, the model tokenizers imported.

It imports the lesson (`tutorial_lib`), never the course machinery (`tutorial_course`).
"""
