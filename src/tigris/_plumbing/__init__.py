"""The package's plumbing, which no user imports: worker processes (``parallel``) and a
run's tasks through them (``work``) on this machine or a dask cluster (``backends``),
files of JSON lines (``jsonl``), one run per folder (``locks``), TOML files (``tomlfile``),
matplotlib when a figure is drawn (``plotting``), the checks of the numbers handed to
the compiled modules (``checks``) and the release's version number (``release``)."""
