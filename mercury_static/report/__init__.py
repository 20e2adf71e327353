"""The coordinator's report page (report.html) from merge's and gold's JSON reports."""
