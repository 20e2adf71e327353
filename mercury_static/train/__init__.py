"""`train`: the similarity model fine-tuned on the team's own pairs."""
