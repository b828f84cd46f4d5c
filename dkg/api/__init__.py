"""The HTTP API and web app: a thin FastAPI layer over the library (answers, retrieval, curation,
benchmarks, relevance annotation). Start it with ``dkg serve``; build it with :func:`dkg.api.app.create_app`."""
