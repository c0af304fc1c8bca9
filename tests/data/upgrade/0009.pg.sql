--
-- PostgreSQL database dump
--

-- Dumped from database version 16.2
-- Dumped by pg_dump version 16.2

SET statement_timeout = 0;
SET lock_timeout = 0;
SET idle_in_transaction_session_timeout = 0;
SET client_encoding = 'UTF8';
SET standard_conforming_strings = on;
SELECT pg_catalog.set_config('search_path', '', false);
SET check_function_bodies = false;
SET xmloption = content;
SET client_min_messages = warning;
SET row_security = off;

--
-- Name: memdesk; Type: SCHEMA; Schema: -; Owner: -
--

CREATE SCHEMA memdesk;


--
-- Name: vector; Type: EXTENSION; Schema: -; Owner: -
--

CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA public;


--
-- Name: EXTENSION vector; Type: COMMENT; Schema: -; Owner: -
--

COMMENT ON EXTENSION vector IS 'vector data type and ivfflat and hnsw access methods';


--
-- Name: memdesk_log_collections(); Type: FUNCTION; Schema: memdesk; Owner: -
--

CREATE FUNCTION memdesk.memdesk_log_collections() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
            BEGIN UPDATE "memdesk"."changes" SET counter = counter + 1, last_xact = txid_current() WHERE last_xact IS DISTINCT FROM txid_current();
                INSERT INTO "memdesk"."change_log" (collection) SELECT DISTINCT collection FROM changed;
                RETURN NULL;
            END $$;


--
-- Name: memdesk_log_everything(); Type: FUNCTION; Schema: memdesk; Owner: -
--

CREATE FUNCTION memdesk.memdesk_log_everything() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
        BEGIN UPDATE "memdesk"."changes" SET counter = counter + 1, last_xact = txid_current() WHERE last_xact IS DISTINCT FROM txid_current();
            INSERT INTO "memdesk"."change_log" (scope_key, collection) VALUES (NULL, NULL);
            RETURN NULL;
        END $$;


--
-- Name: memdesk_log_moved_collections(); Type: FUNCTION; Schema: memdesk; Owner: -
--

CREATE FUNCTION memdesk.memdesk_log_moved_collections() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
            BEGIN UPDATE "memdesk"."changes" SET counter = counter + 1, last_xact = txid_current() WHERE last_xact IS DISTINCT FROM txid_current();
                INSERT INTO "memdesk"."change_log" (collection) SELECT collection FROM old_rows UNION SELECT collection FROM new_rows;
                RETURN NULL;
            END $$;


--
-- Name: memdesk_log_moved_scope_keys(); Type: FUNCTION; Schema: memdesk; Owner: -
--

CREATE FUNCTION memdesk.memdesk_log_moved_scope_keys() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
            BEGIN UPDATE "memdesk"."changes" SET counter = counter + 1, last_xact = txid_current() WHERE last_xact IS DISTINCT FROM txid_current();
                INSERT INTO "memdesk"."change_log" (scope_key) SELECT scope_key FROM old_rows UNION SELECT scope_key FROM new_rows;
                RETURN NULL;
            END $$;


--
-- Name: memdesk_log_scope_keys(); Type: FUNCTION; Schema: memdesk; Owner: -
--

CREATE FUNCTION memdesk.memdesk_log_scope_keys() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
            BEGIN UPDATE "memdesk"."changes" SET counter = counter + 1, last_xact = txid_current() WHERE last_xact IS DISTINCT FROM txid_current();
                INSERT INTO "memdesk"."change_log" (scope_key) SELECT DISTINCT scope_key FROM changed;
                RETURN NULL;
            END $$;


--
-- Name: memdesk_note_change(); Type: FUNCTION; Schema: memdesk; Owner: -
--

CREATE FUNCTION memdesk.memdesk_note_change() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
        BEGIN
            UPDATE "memdesk"."changes" SET counter = counter + 1, last_xact = txid_current()
            WHERE last_xact IS DISTINCT FROM txid_current();
            RETURN NULL;
        END $$;


SET default_tablespace = '';

SET default_table_access_method = heap;

--
-- Name: api_keys; Type: TABLE; Schema: memdesk; Owner: -
--

CREATE TABLE memdesk.api_keys (
    key_id text NOT NULL,
    key_hash text NOT NULL,
    user_id text NOT NULL,
    agent_id text,
    name text,
    created_at timestamp with time zone NOT NULL,
    last_used_at timestamp with time zone
);


--
-- Name: change_floor; Type: TABLE; Schema: memdesk; Owner: -
--

CREATE TABLE memdesk.change_floor (
    singleton boolean DEFAULT true NOT NULL,
    floor bigint NOT NULL,
    CONSTRAINT change_floor_singleton_check CHECK (singleton)
);


--
-- Name: change_log; Type: TABLE; Schema: memdesk; Owner: -
--

CREATE TABLE memdesk.change_log (
    id bigint NOT NULL,
    scope_key text,
    collection text
);


--
-- Name: change_log_id_seq; Type: SEQUENCE; Schema: memdesk; Owner: -
--

ALTER TABLE memdesk.change_log ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME memdesk.change_log_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: changes; Type: TABLE; Schema: memdesk; Owner: -
--

CREATE TABLE memdesk.changes (
    singleton boolean DEFAULT true NOT NULL,
    counter bigint NOT NULL,
    last_xact bigint,
    CONSTRAINT changes_singleton_check CHECK (singleton)
);


--
-- Name: collection_items; Type: TABLE; Schema: memdesk; Owner: -
--

CREATE TABLE memdesk.collection_items (
    pos bigint NOT NULL,
    collection text NOT NULL,
    id text NOT NULL,
    payload text NOT NULL,
    vector public.vector(256) NOT NULL,
    embedding_model text NOT NULL,
    embed_text text
);


--
-- Name: collection_items_pos_seq; Type: SEQUENCE; Schema: memdesk; Owner: -
--

ALTER TABLE memdesk.collection_items ALTER COLUMN pos ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME memdesk.collection_items_pos_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: documents; Type: TABLE; Schema: memdesk; Owner: -
--

CREATE TABLE memdesk.documents (
    pos bigint NOT NULL,
    collection text NOT NULL,
    id text NOT NULL,
    payload text NOT NULL
);


--
-- Name: documents_pos_seq; Type: SEQUENCE; Schema: memdesk; Owner: -
--

ALTER TABLE memdesk.documents ALTER COLUMN pos ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME memdesk.documents_pos_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: episodic_memory; Type: TABLE; Schema: memdesk; Owner: -
--

CREATE TABLE memdesk.episodic_memory (
    id text NOT NULL,
    seq bigint NOT NULL,
    scope_key text NOT NULL,
    user_id text,
    agent_id text,
    run_id text,
    speaker text,
    event_time timestamp with time zone,
    ingest_time timestamp with time zone NOT NULL,
    provenance text NOT NULL,
    embedding_model text NOT NULL,
    record text NOT NULL,
    vector public.vector(256) NOT NULL,
    version integer NOT NULL,
    metadata_ref text
);


--
-- Name: history; Type: TABLE; Schema: memdesk; Owner: -
--

CREATE TABLE memdesk.history (
    hid bigint NOT NULL,
    record_id text NOT NULL,
    memory_type text NOT NULL,
    version integer NOT NULL,
    event text NOT NULL,
    scope_key text NOT NULL,
    record text NOT NULL,
    changed_at timestamp with time zone NOT NULL,
    metadata_ref text
);


--
-- Name: history_hid_seq; Type: SEQUENCE; Schema: memdesk; Owner: -
--

ALTER TABLE memdesk.history ALTER COLUMN hid ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME memdesk.history_hid_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: messages; Type: TABLE; Schema: memdesk; Owner: -
--

CREATE TABLE memdesk.messages (
    seq bigint NOT NULL,
    scope_key text NOT NULL,
    user_id text,
    agent_id text,
    run_id text,
    id text NOT NULL,
    speaker text,
    role text NOT NULL,
    content text NOT NULL,
    "timestamp" text,
    ingest_time text NOT NULL,
    route_mask integer,
    metadata text NOT NULL,
    source text,
    pending integer DEFAULT 0 NOT NULL
);


--
-- Name: messages_seq_seq; Type: SEQUENCE; Schema: memdesk; Owner: -
--

ALTER TABLE memdesk.messages ALTER COLUMN seq ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME memdesk.messages_seq_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: meta; Type: TABLE; Schema: memdesk; Owner: -
--

CREATE TABLE memdesk.meta (
    key text NOT NULL,
    value text NOT NULL
);


--
-- Name: migrations; Type: TABLE; Schema: memdesk; Owner: -
--

CREATE TABLE memdesk.migrations (
    pos bigint NOT NULL,
    name text NOT NULL,
    applied_at timestamp with time zone NOT NULL
);


--
-- Name: migrations_pos_seq; Type: SEQUENCE; Schema: memdesk; Owner: -
--

ALTER TABLE memdesk.migrations ALTER COLUMN pos ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME memdesk.migrations_pos_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: procedural_memory; Type: TABLE; Schema: memdesk; Owner: -
--

CREATE TABLE memdesk.procedural_memory (
    id text NOT NULL,
    seq bigint NOT NULL,
    scope_key text NOT NULL,
    user_id text,
    agent_id text,
    run_id text,
    speaker text,
    event_time timestamp with time zone,
    ingest_time timestamp with time zone NOT NULL,
    provenance text NOT NULL,
    embedding_model text NOT NULL,
    record text NOT NULL,
    vector public.vector(256) NOT NULL,
    version integer NOT NULL,
    metadata_ref text
);


--
-- Name: record_metadata; Type: TABLE; Schema: memdesk; Owner: -
--

CREATE TABLE memdesk.record_metadata (
    metadata_id text NOT NULL,
    scope_key text NOT NULL,
    body text NOT NULL
);


--
-- Name: record_seq; Type: SEQUENCE; Schema: memdesk; Owner: -
--

CREATE SEQUENCE memdesk.record_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;


--
-- Name: scopes; Type: TABLE; Schema: memdesk; Owner: -
--

CREATE TABLE memdesk.scopes (
    pos bigint NOT NULL,
    scope_key text NOT NULL,
    user_id text,
    agent_id text,
    run_id text,
    created_at timestamp with time zone NOT NULL
);


--
-- Name: scopes_pos_seq; Type: SEQUENCE; Schema: memdesk; Owner: -
--

ALTER TABLE memdesk.scopes ALTER COLUMN pos ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME memdesk.scopes_pos_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);


--
-- Name: semantic_memory; Type: TABLE; Schema: memdesk; Owner: -
--

CREATE TABLE memdesk.semantic_memory (
    id text NOT NULL,
    seq bigint NOT NULL,
    scope_key text NOT NULL,
    user_id text,
    agent_id text,
    run_id text,
    speaker text,
    event_time timestamp with time zone,
    ingest_time timestamp with time zone NOT NULL,
    provenance text NOT NULL,
    embedding_model text NOT NULL,
    record text NOT NULL,
    vector public.vector(256) NOT NULL,
    version integer NOT NULL,
    metadata_ref text
);


--
-- Data for Name: api_keys; Type: TABLE DATA; Schema: memdesk; Owner: -
--

COPY memdesk.api_keys (key_id, key_hash, user_id, agent_id, name, created_at, last_used_at) FROM stdin;
\.


--
-- Data for Name: change_floor; Type: TABLE DATA; Schema: memdesk; Owner: -
--

COPY memdesk.change_floor (singleton, floor) FROM stdin;
t	0
\.


--
-- Data for Name: change_log; Type: TABLE DATA; Schema: memdesk; Owner: -
--

COPY memdesk.change_log (id, scope_key, collection) FROM stdin;
1	\N	\N
2	\N	\N
3	\N	\N
4	\N	\N
5	["ana",null,null]	\N
6	["ana",null,null]	\N
7	["ana",null,null]	\N
8	["ana",null,null]	\N
9	["ben",null,null]	\N
10	["ben",null,null]	\N
11	["ana",null,null]	\N
12	["ana",null,null]	\N
\.


--
-- Data for Name: changes; Type: TABLE DATA; Schema: memdesk; Owner: -
--

COPY memdesk.changes (singleton, counter, last_xact) FROM stdin;
t	11	750
\.


--
-- Data for Name: collection_items; Type: TABLE DATA; Schema: memdesk; Owner: -
--

COPY memdesk.collection_items (pos, collection, id, payload, vector, embedding_model, embed_text) FROM stdin;
\.


--
-- Data for Name: documents; Type: TABLE DATA; Schema: memdesk; Owner: -
--

COPY memdesk.documents (pos, collection, id, payload) FROM stdin;
\.


--
-- Data for Name: episodic_memory; Type: TABLE DATA; Schema: memdesk; Owner: -
--

COPY memdesk.episodic_memory (id, seq, scope_key, user_id, agent_id, run_id, speaker, event_time, ingest_time, provenance, embedding_model, record, vector, version, metadata_ref) FROM stdin;
\.


--
-- Data for Name: history; Type: TABLE DATA; Schema: memdesk; Owner: -
--

COPY memdesk.history (hid, record_id, memory_type, version, event, scope_key, record, changed_at, metadata_ref) FROM stdin;
1	46fd23e32b4c43d998082834ee147957	semantic	1	ADD	["ana",null,null]	{"id":"46fd23e32b4c43d998082834ee147957","scope":{"user_id":"ana","agent_id":null,"run_id":null},"speaker":"Ana","role":"user","source":null,"event_time":"2025-04-02T09:30:00Z","temporal_anchor":"2025-04-02","ingest_time":"2026-12-04T16:37:45.547453Z","provenance":["ana-m0"],"embedding_model":"hashing-256","metadata":{},"valid_to":null,"superseded_by":null,"type":"semantic","fact":"Ana: The greenhouse keys hang behind the blue door."}	2026-12-04 16:37:45.5614+00	\N
2	948bf8054f7648dbb63afa2ec980f1e5	semantic	1	ADD	["ana",null,null]	{"metadata":{},"id":"948bf8054f7648dbb63afa2ec980f1e5","scope":{"user_id":"ana","agent_id":null,"run_id":null},"speaker":"Ana","role":"user","source":null,"event_time":"2025-04-02T09:30:00Z","temporal_anchor":"2025-04-02","ingest_time":"2026-12-04T16:37:45.575271Z","provenance":["ana-m1"],"embedding_model":"hashing-256","valid_to":null,"superseded_by":null,"type":"semantic","fact":"Ana: Marisol bakes rye bread every Thursday."}	2026-12-04 16:37:45.583151+00	046fa24e6b8c27fe2c0b2b27c328f623314c86f97a820153b6e03a260c4f0576
4	e0039f5763a8440285278d31ed7e4adb	semantic	1	ADD	["ana",null,null]	{"id":"e0039f5763a8440285278d31ed7e4adb","scope":{"user_id":"ana","agent_id":null,"run_id":null},"speaker":"Ana","role":"user","source":null,"event_time":"2025-04-02T09:30:00Z","temporal_anchor":"2025-04-02","ingest_time":"2026-12-04T16:37:45.603729Z","provenance":["ana-m3"],"embedding_model":"hashing-256","metadata":{},"valid_to":null,"superseded_by":null,"type":"semantic","fact":"Ana: Our cellar holds forty jars of quince jam."}	2026-12-04 16:37:45.615096+00	\N
5	eb9e313966af4b3cbd8dfe762b0fdb3a	semantic	1	ADD	["ben",null,null]	{"id":"eb9e313966af4b3cbd8dfe762b0fdb3a","scope":{"user_id":"ben","agent_id":null,"run_id":null},"speaker":"Ben","role":"user","source":null,"event_time":"2025-04-02T09:30:00Z","temporal_anchor":"2025-04-02","ingest_time":"2026-12-04T16:37:45.621011Z","provenance":["ben-m0"],"embedding_model":"hashing-256","metadata":{},"valid_to":null,"superseded_by":null,"type":"semantic","fact":"Ben: Ben repaired the lighthouse lamp in March."}	2026-12-04 16:37:45.627837+00	\N
6	d48ec484bd39448abb6cd206d386548d	semantic	1	ADD	["ben",null,null]	{"id":"d48ec484bd39448abb6cd206d386548d","scope":{"user_id":"ben","agent_id":null,"run_id":null},"speaker":"Ben","role":"user","source":null,"event_time":"2025-04-02T09:30:00Z","temporal_anchor":"2025-04-02","ingest_time":"2026-12-04T16:37:45.632693Z","provenance":["ben-m1"],"embedding_model":"hashing-256","metadata":{},"valid_to":null,"superseded_by":null,"type":"semantic","fact":"Ben: Ben's kayak is painted orange and grey."}	2026-12-04 16:37:45.641149+00	\N
7	948bf8054f7648dbb63afa2ec980f1e5	semantic	2	UPDATE	["ana",null,null]	{"metadata":{"edited":true},"id":"948bf8054f7648dbb63afa2ec980f1e5","scope":{"user_id":"ana","agent_id":null,"run_id":null},"speaker":"Ana","role":"user","source":null,"event_time":"2026-12-04T16:37:45.575271Z","temporal_anchor":"2026-12-04","ingest_time":"2026-12-04T16:37:45.575271Z","provenance":["ana-m1"],"embedding_model":"hashing-256","valid_to":null,"superseded_by":null,"type":"semantic","fact":"Marisol bakes rye bread every Friday."}	2026-12-04 16:37:45.659858+00	046fa24e6b8c27fe2c0b2b27c328f623314c86f97a820153b6e03a260c4f0576
8	d51d7768ffac413d957a6128ca69215f	semantic	2	DELETE	["ana",null,null]	null	2026-12-04 16:37:45.667619+00	\N
\.


--
-- Data for Name: messages; Type: TABLE DATA; Schema: memdesk; Owner: -
--

COPY memdesk.messages (seq, scope_key, user_id, agent_id, run_id, id, speaker, role, content, "timestamp", ingest_time, route_mask, metadata, source, pending) FROM stdin;
1	["ana",null,null]	ana	\N	\N	ana-m0	Ana	user	The greenhouse keys hang behind the blue door.	2025-04-02T09:30:00+00:00	2026-12-04T16:37:45.547219+00:00	2	{}	\N	0
2	["ana",null,null]	ana	\N	\N	ana-m1	Ana	user	Marisol bakes rye bread every Thursday.	2025-04-02T09:30:00+00:00	2026-12-04T16:37:45.575068+00:00	2	{"notebook":"kitchen","notes":"Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. "}	\N	0
3	["ana",null,null]	ana	\N	\N	ana-m2	Ana	user	The ferry to Talvik leaves at seven.	2025-04-02T09:30:00+00:00	2026-12-04T16:37:45.590566+00:00	2	{"notebook":"kitchen","notes":"Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. "}	\N	0
4	["ana",null,null]	ana	\N	\N	ana-m3	Ana	user	Our cellar holds forty jars of quince jam.	2025-04-02T09:30:00+00:00	2026-12-04T16:37:45.603544+00:00	2	{}	\N	0
5	["ben",null,null]	ben	\N	\N	ben-m0	Ben	user	Ben repaired the lighthouse lamp in March.	2025-04-02T09:30:00+00:00	2026-12-04T16:37:45.620823+00:00	2	{}	\N	0
6	["ben",null,null]	ben	\N	\N	ben-m1	Ben	user	Ben's kayak is painted orange and grey.	2025-04-02T09:30:00+00:00	2026-12-04T16:37:45.632534+00:00	2	{}	\N	0
\.


--
-- Data for Name: meta; Type: TABLE DATA; Schema: memdesk; Owner: -
--

COPY memdesk.meta (key, value) FROM stdin;
embedding_model	hashing-256
embedding_dim	256
\.


--
-- Data for Name: migrations; Type: TABLE DATA; Schema: memdesk; Owner: -
--

COPY memdesk.migrations (pos, name, applied_at) FROM stdin;
1	0001_initial_schema	2026-12-04 16:37:45.424505+00
2	0002_documents_and_scope_indexes	2026-12-04 16:37:45.443523+00
3	0003_history_scope_index	2026-12-04 16:37:45.447581+00
4	0004_change_log	2026-12-04 16:37:45.462088+00
5	0005_dimensioned_vectors	2026-12-04 16:37:45.469445+00
6	0006_api_keys	2026-12-04 16:37:45.475412+00
7	0007_history_tombstones	2026-12-04 16:37:45.476948+00
8	0008_message_status	2026-12-04 16:37:45.480083+00
9	0009_shared_metadata	2026-12-04 16:37:45.496376+00
\.


--
-- Data for Name: procedural_memory; Type: TABLE DATA; Schema: memdesk; Owner: -
--

COPY memdesk.procedural_memory (id, seq, scope_key, user_id, agent_id, run_id, speaker, event_time, ingest_time, provenance, embedding_model, record, vector, version, metadata_ref) FROM stdin;
\.


--
-- Data for Name: record_metadata; Type: TABLE DATA; Schema: memdesk; Owner: -
--

COPY memdesk.record_metadata (metadata_id, scope_key, body) FROM stdin;
046fa24e6b8c27fe2c0b2b27c328f623314c86f97a820153b6e03a260c4f0576	["ana",null,null]	{"notebook":"kitchen","notes":"Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. Rye, caraway, a long proof on the windowsill. "}
\.


--
-- Data for Name: scopes; Type: TABLE DATA; Schema: memdesk; Owner: -
--

COPY memdesk.scopes (pos, scope_key, user_id, agent_id, run_id, created_at) FROM stdin;
1	["ana",null,null]	ana	\N	\N	2026-12-04 16:37:45.555704+00
9	["ben",null,null]	ben	\N	\N	2026-12-04 16:37:45.622155+00
\.


--
-- Data for Name: semantic_memory; Type: TABLE DATA; Schema: memdesk; Owner: -
--

COPY memdesk.semantic_memory (id, seq, scope_key, user_id, agent_id, run_id, speaker, event_time, ingest_time, provenance, embedding_model, record, vector, version, metadata_ref) FROM stdin;
46fd23e32b4c43d998082834ee147957	1	["ana",null,null]	ana	\N	\N	Ana	2025-04-02 09:30:00+00	2026-12-04 16:37:45.547453+00	["ana-m0"]	hashing-256	{"id":"46fd23e32b4c43d998082834ee147957","scope":{"user_id":"ana","agent_id":null,"run_id":null},"speaker":"Ana","role":"user","source":null,"event_time":"2025-04-02T09:30:00Z","temporal_anchor":"2025-04-02","ingest_time":"2026-12-04T16:37:45.547453Z","provenance":["ana-m0"],"embedding_model":"hashing-256","metadata":{},"valid_to":null,"superseded_by":null,"type":"semantic","fact":"Ana: The greenhouse keys hang behind the blue door."}	[0,0,0,0,0,0,-0.2773501,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.13867505,0,0,0,0,0,0,0,0,-0.2773501,0,0,0,0,0,0,-0.5547002,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.13867505,0,0,0,-0.13867505,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.13867505,-0.13867505,0,0,0,0,0,0.13867505,0,0,0,0,0,0.2773501,0,0,0,0,0,0,0,-0.2773501,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.13867505,-0.2773501,0,0,0,0,0,0,0,0,0,-0.2773501,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.13867505,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.2773501,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]	1	\N
e0039f5763a8440285278d31ed7e4adb	4	["ana",null,null]	ana	\N	\N	Ana	2025-04-02 09:30:00+00	2026-12-04 16:37:45.603729+00	["ana-m3"]	hashing-256	{"id":"e0039f5763a8440285278d31ed7e4adb","scope":{"user_id":"ana","agent_id":null,"run_id":null},"speaker":"Ana","role":"user","source":null,"event_time":"2025-04-02T09:30:00Z","temporal_anchor":"2025-04-02","ingest_time":"2026-12-04T16:37:45.603729Z","provenance":["ana-m3"],"embedding_model":"hashing-256","metadata":{},"valid_to":null,"superseded_by":null,"type":"semantic","fact":"Ana: Our cellar holds forty jars of quince jam."}	[0,0,0,0,-0.15075567,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.30151135,0,0,0,0,0,-0.15075567,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.15075567,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.30151135,0,0,0,0,0,0,-0.30151135,-0.30151135,0,0,0,0,0,0,0,0.15075567,0,0,0,0,-0.15075567,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.30151135,0,0,0,0,0,0,0,0,0,0,0,0,0,0.30151135,0,0,-0.15075567,0,0,-0.30151135,0,0,-0.30151135,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.15075567,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.15075567,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.30151135,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]	1	\N
eb9e313966af4b3cbd8dfe762b0fdb3a	5	["ben",null,null]	ben	\N	\N	Ben	2025-04-02 09:30:00+00	2026-12-04 16:37:45.621011+00	["ben-m0"]	hashing-256	{"id":"eb9e313966af4b3cbd8dfe762b0fdb3a","scope":{"user_id":"ben","agent_id":null,"run_id":null},"speaker":"Ben","role":"user","source":null,"event_time":"2025-04-02T09:30:00Z","temporal_anchor":"2025-04-02","ingest_time":"2026-12-04T16:37:45.621011Z","provenance":["ben-m0"],"embedding_model":"hashing-256","metadata":{},"valid_to":null,"superseded_by":null,"type":"semantic","fact":"Ben: Ben repaired the lighthouse lamp in March."}	[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.145865,0,0,0,0,-0.29173,0,0,0,0,0,0,0,0,0,0.29173,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.29173,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.29173,0,0,0,0,0,0.58346,-0.145865,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.29173,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.29173,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.145865,0,0,0,0,0,0,0,0,-0.145865,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.145865,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.145865,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.145865,0,0,0,0,0,0,0,0,0,0]	1	\N
d48ec484bd39448abb6cd206d386548d	6	["ben",null,null]	ben	\N	\N	Ben	2025-04-02 09:30:00+00	2026-12-04 16:37:45.632693+00	["ben-m1"]	hashing-256	{"id":"d48ec484bd39448abb6cd206d386548d","scope":{"user_id":"ben","agent_id":null,"run_id":null},"speaker":"Ben","role":"user","source":null,"event_time":"2025-04-02T09:30:00Z","temporal_anchor":"2025-04-02","ingest_time":"2026-12-04T16:37:45.632693Z","provenance":["ben-m1"],"embedding_model":"hashing-256","metadata":{},"valid_to":null,"superseded_by":null,"type":"semantic","fact":"Ben: Ben's kayak is painted orange and grey."}	[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.13867505,0,0,-0.2773501,0,0,0,0,0,0,-0.13867505,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.13867505,0,0,0,0,0.5547002,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.13867505,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.2773501,0,0,0,0,0,0,-0.13867505,0.13867505,0,0.2773501,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.13867505,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.13867505,0,-0.2773501,0,0,0,0.2773501,0,0,0,0,0,-0.2773501,0,0,0,0.2773501,0,0,0,0,0,0,0,0]	1	\N
948bf8054f7648dbb63afa2ec980f1e5	2	["ana",null,null]	ana	\N	\N	Ana	2026-12-04 16:37:45.575271+00	2026-12-04 16:37:45.575271+00	["ana-m1"]	hashing-256	{"metadata":{"edited":true},"id":"948bf8054f7648dbb63afa2ec980f1e5","scope":{"user_id":"ana","agent_id":null,"run_id":null},"speaker":"Ana","role":"user","source":null,"event_time":"2026-12-04T16:37:45.575271Z","temporal_anchor":"2026-12-04","ingest_time":"2026-12-04T16:37:45.575271Z","provenance":["ana-m1"],"embedding_model":"hashing-256","valid_to":null,"superseded_by":null,"type":"semantic","fact":"Marisol bakes rye bread every Friday."}	[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.37139067,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.37139067,-0.18569534,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.37139067,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.37139067,0,0,0,0,0,0,0,0,0,0,0.37139067,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.37139067,0,0,0,0,0,0,0,-0.18569534,0,0,0,0,0,0,0,0,0,0.18569534,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.18569534,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.18569534,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]	2	046fa24e6b8c27fe2c0b2b27c328f623314c86f97a820153b6e03a260c4f0576
\.


--
-- Name: change_log_id_seq; Type: SEQUENCE SET; Schema: memdesk; Owner: -
--

SELECT pg_catalog.setval('memdesk.change_log_id_seq', 12, true);


--
-- Name: collection_items_pos_seq; Type: SEQUENCE SET; Schema: memdesk; Owner: -
--

SELECT pg_catalog.setval('memdesk.collection_items_pos_seq', 1, false);


--
-- Name: documents_pos_seq; Type: SEQUENCE SET; Schema: memdesk; Owner: -
--

SELECT pg_catalog.setval('memdesk.documents_pos_seq', 1, false);


--
-- Name: history_hid_seq; Type: SEQUENCE SET; Schema: memdesk; Owner: -
--

SELECT pg_catalog.setval('memdesk.history_hid_seq', 8, true);


--
-- Name: messages_seq_seq; Type: SEQUENCE SET; Schema: memdesk; Owner: -
--

SELECT pg_catalog.setval('memdesk.messages_seq_seq', 6, true);


--
-- Name: migrations_pos_seq; Type: SEQUENCE SET; Schema: memdesk; Owner: -
--

SELECT pg_catalog.setval('memdesk.migrations_pos_seq', 9, true);


--
-- Name: record_seq; Type: SEQUENCE SET; Schema: memdesk; Owner: -
--

SELECT pg_catalog.setval('memdesk.record_seq', 6, true);


--
-- Name: scopes_pos_seq; Type: SEQUENCE SET; Schema: memdesk; Owner: -
--

SELECT pg_catalog.setval('memdesk.scopes_pos_seq', 13, true);


--
-- Name: api_keys api_keys_key_hash_key; Type: CONSTRAINT; Schema: memdesk; Owner: -
--

ALTER TABLE ONLY memdesk.api_keys
    ADD CONSTRAINT api_keys_key_hash_key UNIQUE (key_hash);


--
-- Name: api_keys api_keys_pkey; Type: CONSTRAINT; Schema: memdesk; Owner: -
--

ALTER TABLE ONLY memdesk.api_keys
    ADD CONSTRAINT api_keys_pkey PRIMARY KEY (key_id);


--
-- Name: change_floor change_floor_pkey; Type: CONSTRAINT; Schema: memdesk; Owner: -
--

ALTER TABLE ONLY memdesk.change_floor
    ADD CONSTRAINT change_floor_pkey PRIMARY KEY (singleton);


--
-- Name: change_log change_log_pkey; Type: CONSTRAINT; Schema: memdesk; Owner: -
--

ALTER TABLE ONLY memdesk.change_log
    ADD CONSTRAINT change_log_pkey PRIMARY KEY (id);


--
-- Name: changes changes_pkey; Type: CONSTRAINT; Schema: memdesk; Owner: -
--

ALTER TABLE ONLY memdesk.changes
    ADD CONSTRAINT changes_pkey PRIMARY KEY (singleton);


--
-- Name: collection_items collection_items_pkey; Type: CONSTRAINT; Schema: memdesk; Owner: -
--

ALTER TABLE ONLY memdesk.collection_items
    ADD CONSTRAINT collection_items_pkey PRIMARY KEY (collection, id);


--
-- Name: collection_items collection_items_pos_key; Type: CONSTRAINT; Schema: memdesk; Owner: -
--

ALTER TABLE ONLY memdesk.collection_items
    ADD CONSTRAINT collection_items_pos_key UNIQUE (pos);


--
-- Name: documents documents_pkey; Type: CONSTRAINT; Schema: memdesk; Owner: -
--

ALTER TABLE ONLY memdesk.documents
    ADD CONSTRAINT documents_pkey PRIMARY KEY (collection, id);


--
-- Name: documents documents_pos_key; Type: CONSTRAINT; Schema: memdesk; Owner: -
--

ALTER TABLE ONLY memdesk.documents
    ADD CONSTRAINT documents_pos_key UNIQUE (pos);


--
-- Name: episodic_memory episodic_memory_pkey; Type: CONSTRAINT; Schema: memdesk; Owner: -
--

ALTER TABLE ONLY memdesk.episodic_memory
    ADD CONSTRAINT episodic_memory_pkey PRIMARY KEY (id);


--
-- Name: history history_pkey; Type: CONSTRAINT; Schema: memdesk; Owner: -
--

ALTER TABLE ONLY memdesk.history
    ADD CONSTRAINT history_pkey PRIMARY KEY (hid);


--
-- Name: messages messages_pkey; Type: CONSTRAINT; Schema: memdesk; Owner: -
--

ALTER TABLE ONLY memdesk.messages
    ADD CONSTRAINT messages_pkey PRIMARY KEY (seq);


--
-- Name: messages messages_scope_key_id_key; Type: CONSTRAINT; Schema: memdesk; Owner: -
--

ALTER TABLE ONLY memdesk.messages
    ADD CONSTRAINT messages_scope_key_id_key UNIQUE (scope_key, id);


--
-- Name: meta meta_pkey; Type: CONSTRAINT; Schema: memdesk; Owner: -
--

ALTER TABLE ONLY memdesk.meta
    ADD CONSTRAINT meta_pkey PRIMARY KEY (key);


--
-- Name: migrations migrations_pkey; Type: CONSTRAINT; Schema: memdesk; Owner: -
--

ALTER TABLE ONLY memdesk.migrations
    ADD CONSTRAINT migrations_pkey PRIMARY KEY (name);


--
-- Name: migrations migrations_pos_key; Type: CONSTRAINT; Schema: memdesk; Owner: -
--

ALTER TABLE ONLY memdesk.migrations
    ADD CONSTRAINT migrations_pos_key UNIQUE (pos);


--
-- Name: procedural_memory procedural_memory_pkey; Type: CONSTRAINT; Schema: memdesk; Owner: -
--

ALTER TABLE ONLY memdesk.procedural_memory
    ADD CONSTRAINT procedural_memory_pkey PRIMARY KEY (id);


--
-- Name: record_metadata record_metadata_pkey; Type: CONSTRAINT; Schema: memdesk; Owner: -
--

ALTER TABLE ONLY memdesk.record_metadata
    ADD CONSTRAINT record_metadata_pkey PRIMARY KEY (metadata_id);


--
-- Name: scopes scopes_pkey; Type: CONSTRAINT; Schema: memdesk; Owner: -
--

ALTER TABLE ONLY memdesk.scopes
    ADD CONSTRAINT scopes_pkey PRIMARY KEY (scope_key);


--
-- Name: scopes scopes_pos_key; Type: CONSTRAINT; Schema: memdesk; Owner: -
--

ALTER TABLE ONLY memdesk.scopes
    ADD CONSTRAINT scopes_pos_key UNIQUE (pos);


--
-- Name: semantic_memory semantic_memory_pkey; Type: CONSTRAINT; Schema: memdesk; Owner: -
--

ALTER TABLE ONLY memdesk.semantic_memory
    ADD CONSTRAINT semantic_memory_pkey PRIMARY KEY (id);


--
-- Name: ix_api_keys_user; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_api_keys_user ON memdesk.api_keys USING btree (user_id, agent_id);


--
-- Name: ix_collection_items_pos; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_collection_items_pos ON memdesk.collection_items USING btree (collection, pos);


--
-- Name: ix_documents_pos; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_documents_pos ON memdesk.documents USING btree (collection, pos);


--
-- Name: ix_episodic_memory_agent; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_episodic_memory_agent ON memdesk.episodic_memory USING btree (agent_id);


--
-- Name: ix_episodic_memory_metadata_ref; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_episodic_memory_metadata_ref ON memdesk.episodic_memory USING btree (metadata_ref) WHERE (metadata_ref IS NOT NULL);


--
-- Name: ix_episodic_memory_run; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_episodic_memory_run ON memdesk.episodic_memory USING btree (run_id);


--
-- Name: ix_episodic_memory_scope; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_episodic_memory_scope ON memdesk.episodic_memory USING btree (scope_key, seq);


--
-- Name: ix_episodic_memory_seq; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_episodic_memory_seq ON memdesk.episodic_memory USING btree (seq);


--
-- Name: ix_episodic_memory_user; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_episodic_memory_user ON memdesk.episodic_memory USING btree (user_id, agent_id, run_id);


--
-- Name: ix_history_metadata_ref; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_history_metadata_ref ON memdesk.history USING btree (metadata_ref) WHERE (metadata_ref IS NOT NULL);


--
-- Name: ix_history_record; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_history_record ON memdesk.history USING btree (record_id, version);


--
-- Name: ix_history_scope; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_history_scope ON memdesk.history USING btree (scope_key, record_id);


--
-- Name: ix_messages_agent; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_messages_agent ON memdesk.messages USING btree (agent_id);


--
-- Name: ix_messages_id; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_messages_id ON memdesk.messages USING btree (id);


--
-- Name: ix_messages_pending; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_messages_pending ON memdesk.messages USING btree (seq) WHERE (pending = 1);


--
-- Name: ix_messages_run; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_messages_run ON memdesk.messages USING btree (run_id);


--
-- Name: ix_messages_scope_seq; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_messages_scope_seq ON memdesk.messages USING btree (scope_key, seq);


--
-- Name: ix_messages_user; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_messages_user ON memdesk.messages USING btree (user_id, agent_id, run_id);


--
-- Name: ix_procedural_memory_agent; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_procedural_memory_agent ON memdesk.procedural_memory USING btree (agent_id);


--
-- Name: ix_procedural_memory_metadata_ref; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_procedural_memory_metadata_ref ON memdesk.procedural_memory USING btree (metadata_ref) WHERE (metadata_ref IS NOT NULL);


--
-- Name: ix_procedural_memory_run; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_procedural_memory_run ON memdesk.procedural_memory USING btree (run_id);


--
-- Name: ix_procedural_memory_scope; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_procedural_memory_scope ON memdesk.procedural_memory USING btree (scope_key, seq);


--
-- Name: ix_procedural_memory_seq; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_procedural_memory_seq ON memdesk.procedural_memory USING btree (seq);


--
-- Name: ix_procedural_memory_user; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_procedural_memory_user ON memdesk.procedural_memory USING btree (user_id, agent_id, run_id);


--
-- Name: ix_record_metadata_scope; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_record_metadata_scope ON memdesk.record_metadata USING btree (scope_key);


--
-- Name: ix_scopes_agent; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_scopes_agent ON memdesk.scopes USING btree (agent_id, run_id);


--
-- Name: ix_scopes_run; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_scopes_run ON memdesk.scopes USING btree (run_id);


--
-- Name: ix_scopes_user; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_scopes_user ON memdesk.scopes USING btree (user_id, agent_id, run_id);


--
-- Name: ix_semantic_memory_agent; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_semantic_memory_agent ON memdesk.semantic_memory USING btree (agent_id);


--
-- Name: ix_semantic_memory_metadata_ref; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_semantic_memory_metadata_ref ON memdesk.semantic_memory USING btree (metadata_ref) WHERE (metadata_ref IS NOT NULL);


--
-- Name: ix_semantic_memory_run; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_semantic_memory_run ON memdesk.semantic_memory USING btree (run_id);


--
-- Name: ix_semantic_memory_scope; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_semantic_memory_scope ON memdesk.semantic_memory USING btree (scope_key, seq);


--
-- Name: ix_semantic_memory_seq; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_semantic_memory_seq ON memdesk.semantic_memory USING btree (seq);


--
-- Name: ix_semantic_memory_user; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_semantic_memory_user ON memdesk.semantic_memory USING btree (user_id, agent_id, run_id);


--
-- Name: collection_items collection_items_log_delete; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER collection_items_log_delete AFTER DELETE ON memdesk.collection_items REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_log_collections();


--
-- Name: collection_items collection_items_log_insert; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER collection_items_log_insert AFTER INSERT ON memdesk.collection_items REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_log_collections();


--
-- Name: collection_items collection_items_log_truncate; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER collection_items_log_truncate AFTER TRUNCATE ON memdesk.collection_items FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_log_everything();


--
-- Name: collection_items collection_items_log_update; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER collection_items_log_update AFTER UPDATE ON memdesk.collection_items REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_log_moved_collections();


--
-- Name: collection_items collection_items_note_change; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER collection_items_note_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON memdesk.collection_items FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_note_change();


--
-- Name: documents documents_note_change; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER documents_note_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON memdesk.documents FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_note_change();


--
-- Name: episodic_memory episodic_memory_log_delete; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER episodic_memory_log_delete AFTER DELETE ON memdesk.episodic_memory REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_log_scope_keys();


--
-- Name: episodic_memory episodic_memory_log_insert; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER episodic_memory_log_insert AFTER INSERT ON memdesk.episodic_memory REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_log_scope_keys();


--
-- Name: episodic_memory episodic_memory_log_truncate; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER episodic_memory_log_truncate AFTER TRUNCATE ON memdesk.episodic_memory FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_log_everything();


--
-- Name: episodic_memory episodic_memory_log_update; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER episodic_memory_log_update AFTER UPDATE ON memdesk.episodic_memory REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_log_moved_scope_keys();


--
-- Name: episodic_memory episodic_memory_note_change; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER episodic_memory_note_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON memdesk.episodic_memory FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_note_change();


--
-- Name: history history_note_change; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER history_note_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON memdesk.history FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_note_change();


--
-- Name: messages messages_note_change; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER messages_note_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON memdesk.messages FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_note_change();


--
-- Name: meta meta_log; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER meta_log AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON memdesk.meta FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_log_everything();


--
-- Name: meta meta_note_change; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER meta_note_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON memdesk.meta FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_note_change();


--
-- Name: procedural_memory procedural_memory_log_delete; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER procedural_memory_log_delete AFTER DELETE ON memdesk.procedural_memory REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_log_scope_keys();


--
-- Name: procedural_memory procedural_memory_log_insert; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER procedural_memory_log_insert AFTER INSERT ON memdesk.procedural_memory REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_log_scope_keys();


--
-- Name: procedural_memory procedural_memory_log_truncate; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER procedural_memory_log_truncate AFTER TRUNCATE ON memdesk.procedural_memory FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_log_everything();


--
-- Name: procedural_memory procedural_memory_log_update; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER procedural_memory_log_update AFTER UPDATE ON memdesk.procedural_memory REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_log_moved_scope_keys();


--
-- Name: procedural_memory procedural_memory_note_change; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER procedural_memory_note_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON memdesk.procedural_memory FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_note_change();


--
-- Name: scopes scopes_note_change; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER scopes_note_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON memdesk.scopes FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_note_change();


--
-- Name: semantic_memory semantic_memory_log_delete; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER semantic_memory_log_delete AFTER DELETE ON memdesk.semantic_memory REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_log_scope_keys();


--
-- Name: semantic_memory semantic_memory_log_insert; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER semantic_memory_log_insert AFTER INSERT ON memdesk.semantic_memory REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_log_scope_keys();


--
-- Name: semantic_memory semantic_memory_log_truncate; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER semantic_memory_log_truncate AFTER TRUNCATE ON memdesk.semantic_memory FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_log_everything();


--
-- Name: semantic_memory semantic_memory_log_update; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER semantic_memory_log_update AFTER UPDATE ON memdesk.semantic_memory REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_log_moved_scope_keys();


--
-- Name: semantic_memory semantic_memory_note_change; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER semantic_memory_note_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON memdesk.semantic_memory FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_note_change();


--
-- PostgreSQL database dump complete
--

