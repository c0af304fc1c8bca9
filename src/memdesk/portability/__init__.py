"""Taking memories elsewhere: export a scope to a file and import it into any store (:mod:`.export`,
:mod:`.importer`, the file format in :mod:`.format`), copy a whole database onto another (:mod:`.copy`), and back
up a live SQLite store (:mod:`.backup`). Built on the store protocols only, so SQLite and PostgreSQL alike."""
