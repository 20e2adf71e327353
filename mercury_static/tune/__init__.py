"""The ranker measured (eval, cross-validation) and tuned on gold and on the team's exports."""
