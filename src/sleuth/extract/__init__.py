def extract(document, **kw): raise NotImplementedError
