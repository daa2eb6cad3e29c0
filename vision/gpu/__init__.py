"""One round of detector training on a lent GPU machine (the ``device`` tool): what to carry there and the script
that runs there.  See docs/vision.md, "A GPU round"."""
