"""The assistance: the model, its export and its page form, and the related-sentence ranker."""
