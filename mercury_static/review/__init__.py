"""Review and adjudication (docs/review.md): `review` makes a review bundle from merged work (build.py, with
the disagreement of each record from disagreement.py), the page's review mode writes review exports, `gold`
reads them (exports.py) into one adjudicated dataset (gold.py) and scores annotators and agents against it
(quality.py)."""
