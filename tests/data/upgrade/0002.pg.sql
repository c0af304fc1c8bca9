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
    vector public.vector NOT NULL,
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
    vector public.vector NOT NULL,
    version integer NOT NULL
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
    changed_at timestamp with time zone NOT NULL
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
    metadata text NOT NULL
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
    vector public.vector NOT NULL,
    version integer NOT NULL
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
    vector public.vector NOT NULL,
    version integer NOT NULL
);


--
-- Data for Name: changes; Type: TABLE DATA; Schema: memdesk; Owner: -
--

COPY memdesk.changes (singleton, counter, last_xact) FROM stdin;
t	10	756
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

COPY memdesk.episodic_memory (id, seq, scope_key, user_id, agent_id, run_id, speaker, event_time, ingest_time, provenance, embedding_model, record, vector, version) FROM stdin;
\.


--
-- Data for Name: history; Type: TABLE DATA; Schema: memdesk; Owner: -
--

COPY memdesk.history (hid, record_id, memory_type, version, event, scope_key, record, changed_at) FROM stdin;
1	3212dbfc05aa4cd58101fd41bd38b941	semantic	1	ADD	["ana",null,null]	{"id":"3212dbfc05aa4cd58101fd41bd38b941","scope":{"user_id":"ana","agent_id":null,"run_id":null},"speaker":"Ana","role":"user","source":null,"event_time":"2025-04-02T09:30:00Z","temporal_anchor":"2025-04-02","ingest_time":"2026-12-04T10:46:30.737665Z","provenance":["ana-m0"],"embedding_model":"hashing-256","metadata":{},"type":"semantic","fact":"Ana: The greenhouse keys hang behind the blue door."}	2026-12-04 10:46:30.778873+00
2	f6853345d89f4000bda87908c4bac53c	semantic	1	ADD	["ana",null,null]	{"id":"f6853345d89f4000bda87908c4bac53c","scope":{"user_id":"ana","agent_id":null,"run_id":null},"speaker":"Ana","role":"user","source":null,"event_time":"2025-04-02T09:30:00Z","temporal_anchor":"2025-04-02","ingest_time":"2026-12-04T10:46:30.815419Z","provenance":["ana-m1"],"embedding_model":"hashing-256","metadata":{},"type":"semantic","fact":"Ana: Marisol bakes rye bread every Thursday."}	2026-12-04 10:46:30.849247+00
3	388554cd153649fcae2bf8892b58ca22	semantic	1	ADD	["ana",null,null]	{"id":"388554cd153649fcae2bf8892b58ca22","scope":{"user_id":"ana","agent_id":null,"run_id":null},"speaker":"Ana","role":"user","source":null,"event_time":"2025-04-02T09:30:00Z","temporal_anchor":"2025-04-02","ingest_time":"2026-12-04T10:46:30.895642Z","provenance":["ana-m2"],"embedding_model":"hashing-256","metadata":{},"type":"semantic","fact":"Ana: The ferry to Talvik leaves at seven."}	2026-12-04 10:46:30.930313+00
4	9557d6cc4e9a475ca52f1903d3f4019e	semantic	1	ADD	["ana",null,null]	{"id":"9557d6cc4e9a475ca52f1903d3f4019e","scope":{"user_id":"ana","agent_id":null,"run_id":null},"speaker":"Ana","role":"user","source":null,"event_time":"2025-04-02T09:30:00Z","temporal_anchor":"2025-04-02","ingest_time":"2026-12-04T10:46:30.959670Z","provenance":["ana-m3"],"embedding_model":"hashing-256","metadata":{},"type":"semantic","fact":"Ana: Our cellar holds forty jars of quince jam."}	2026-12-04 10:46:30.99913+00
5	a9e07600776347fa8297e9fc9d698285	semantic	1	ADD	["ben",null,null]	{"id":"a9e07600776347fa8297e9fc9d698285","scope":{"user_id":"ben","agent_id":null,"run_id":null},"speaker":"Ben","role":"user","source":null,"event_time":"2025-04-02T09:30:00Z","temporal_anchor":"2025-04-02","ingest_time":"2026-12-04T10:46:31.027108Z","provenance":["ben-m0"],"embedding_model":"hashing-256","metadata":{},"type":"semantic","fact":"Ben: Ben repaired the lighthouse lamp in March."}	2026-12-04 10:46:31.044543+00
6	cf609acce3884fefb05e54b52ffcc1b4	semantic	1	ADD	["ben",null,null]	{"id":"cf609acce3884fefb05e54b52ffcc1b4","scope":{"user_id":"ben","agent_id":null,"run_id":null},"speaker":"Ben","role":"user","source":null,"event_time":"2025-04-02T09:30:00Z","temporal_anchor":"2025-04-02","ingest_time":"2026-12-04T10:46:31.099354Z","provenance":["ben-m1"],"embedding_model":"hashing-256","metadata":{},"type":"semantic","fact":"Ben: Ben's kayak is painted orange and grey."}	2026-12-04 10:46:31.156436+00
7	f6853345d89f4000bda87908c4bac53c	semantic	2	UPDATE	["ana",null,null]	{"id":"f6853345d89f4000bda87908c4bac53c","scope":{"user_id":"ana","agent_id":null,"run_id":null},"speaker":"Ana","role":"user","source":null,"event_time":"2025-04-02T09:30:00Z","temporal_anchor":"2025-04-02","ingest_time":"2026-12-04T10:46:30.815419Z","provenance":["ana-m1"],"embedding_model":"hashing-256","metadata":{},"type":"semantic","fact":"Marisol bakes rye bread every Friday."}	2026-12-04 10:46:31.20368+00
8	388554cd153649fcae2bf8892b58ca22	semantic	2	DELETE	["ana",null,null]	{"id":"388554cd153649fcae2bf8892b58ca22","scope":{"user_id":"ana","agent_id":null,"run_id":null},"speaker":"Ana","role":"user","source":null,"event_time":"2025-04-02T09:30:00Z","temporal_anchor":"2025-04-02","ingest_time":"2026-12-04T10:46:30.895642Z","provenance":["ana-m2"],"embedding_model":"hashing-256","metadata":{},"type":"semantic","fact":"Ana: The ferry to Talvik leaves at seven."}	2026-12-04 10:46:31.212248+00
\.


--
-- Data for Name: messages; Type: TABLE DATA; Schema: memdesk; Owner: -
--

COPY memdesk.messages (seq, scope_key, user_id, agent_id, run_id, id, speaker, role, content, "timestamp", ingest_time, route_mask, metadata) FROM stdin;
1	["ana",null,null]	ana	\N	\N	ana-m0	Ana	user	The greenhouse keys hang behind the blue door.	2025-04-02T09:30:00+00:00	2026-12-04T10:46:30.737859+00:00	2	{}
2	["ana",null,null]	ana	\N	\N	ana-m1	Ana	user	Marisol bakes rye bread every Thursday.	2025-04-02T09:30:00+00:00	2026-12-04T10:46:30.815493+00:00	2	{}
3	["ana",null,null]	ana	\N	\N	ana-m2	Ana	user	The ferry to Talvik leaves at seven.	2025-04-02T09:30:00+00:00	2026-12-04T10:46:30.895707+00:00	2	{}
4	["ana",null,null]	ana	\N	\N	ana-m3	Ana	user	Our cellar holds forty jars of quince jam.	2025-04-02T09:30:00+00:00	2026-12-04T10:46:30.959748+00:00	2	{}
5	["ben",null,null]	ben	\N	\N	ben-m0	Ben	user	Ben repaired the lighthouse lamp in March.	2025-04-02T09:30:00+00:00	2026-12-04T10:46:31.027190+00:00	2	{}
6	["ben",null,null]	ben	\N	\N	ben-m1	Ben	user	Ben's kayak is painted orange and grey.	2025-04-02T09:30:00+00:00	2026-12-04T10:46:31.099425+00:00	2	{}
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
1	0001_initial_schema	2026-12-04 10:46:30.527788+00
2	0002_documents_and_scope_indexes	2026-12-04 10:46:30.64286+00
\.


--
-- Data for Name: procedural_memory; Type: TABLE DATA; Schema: memdesk; Owner: -
--

COPY memdesk.procedural_memory (id, seq, scope_key, user_id, agent_id, run_id, speaker, event_time, ingest_time, provenance, embedding_model, record, vector, version) FROM stdin;
\.


--
-- Data for Name: scopes; Type: TABLE DATA; Schema: memdesk; Owner: -
--

COPY memdesk.scopes (pos, scope_key, user_id, agent_id, run_id, created_at) FROM stdin;
1	["ana",null,null]	ana	\N	\N	2026-12-04 10:46:30.749357+00
9	["ben",null,null]	ben	\N	\N	2026-12-04 10:46:31.043187+00
\.


--
-- Data for Name: semantic_memory; Type: TABLE DATA; Schema: memdesk; Owner: -
--

COPY memdesk.semantic_memory (id, seq, scope_key, user_id, agent_id, run_id, speaker, event_time, ingest_time, provenance, embedding_model, record, vector, version) FROM stdin;
3212dbfc05aa4cd58101fd41bd38b941	1	["ana",null,null]	ana	\N	\N	Ana	2025-04-02 09:30:00+00	2026-12-04 10:46:30.737665+00	["ana-m0"]	hashing-256	{"id":"3212dbfc05aa4cd58101fd41bd38b941","scope":{"user_id":"ana","agent_id":null,"run_id":null},"speaker":"Ana","role":"user","source":null,"event_time":"2025-04-02T09:30:00Z","temporal_anchor":"2025-04-02","ingest_time":"2026-12-04T10:46:30.737665Z","provenance":["ana-m0"],"embedding_model":"hashing-256","metadata":{},"type":"semantic","fact":"Ana: The greenhouse keys hang behind the blue door."}	[0,0,0,0,0,0,-0.2773501,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.13867505,0,0,0,0,0,0,0,0,-0.2773501,0,0,0,0,0,0,-0.5547002,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.13867505,0,0,0,-0.13867505,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.13867505,-0.13867505,0,0,0,0,0,0.13867505,0,0,0,0,0,0.2773501,0,0,0,0,0,0,0,-0.2773501,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.13867505,-0.2773501,0,0,0,0,0,0,0,0,0,-0.2773501,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.13867505,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.2773501,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]	1
9557d6cc4e9a475ca52f1903d3f4019e	4	["ana",null,null]	ana	\N	\N	Ana	2025-04-02 09:30:00+00	2026-12-04 10:46:30.95967+00	["ana-m3"]	hashing-256	{"id":"9557d6cc4e9a475ca52f1903d3f4019e","scope":{"user_id":"ana","agent_id":null,"run_id":null},"speaker":"Ana","role":"user","source":null,"event_time":"2025-04-02T09:30:00Z","temporal_anchor":"2025-04-02","ingest_time":"2026-12-04T10:46:30.959670Z","provenance":["ana-m3"],"embedding_model":"hashing-256","metadata":{},"type":"semantic","fact":"Ana: Our cellar holds forty jars of quince jam."}	[0,0,0,0,-0.15075567,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.30151135,0,0,0,0,0,-0.15075567,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.15075567,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.30151135,0,0,0,0,0,0,-0.30151135,-0.30151135,0,0,0,0,0,0,0,0.15075567,0,0,0,0,-0.15075567,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.30151135,0,0,0,0,0,0,0,0,0,0,0,0,0,0.30151135,0,0,-0.15075567,0,0,-0.30151135,0,0,-0.30151135,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.15075567,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.15075567,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.30151135,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]	1
a9e07600776347fa8297e9fc9d698285	5	["ben",null,null]	ben	\N	\N	Ben	2025-04-02 09:30:00+00	2026-12-04 10:46:31.027108+00	["ben-m0"]	hashing-256	{"id":"a9e07600776347fa8297e9fc9d698285","scope":{"user_id":"ben","agent_id":null,"run_id":null},"speaker":"Ben","role":"user","source":null,"event_time":"2025-04-02T09:30:00Z","temporal_anchor":"2025-04-02","ingest_time":"2026-12-04T10:46:31.027108Z","provenance":["ben-m0"],"embedding_model":"hashing-256","metadata":{},"type":"semantic","fact":"Ben: Ben repaired the lighthouse lamp in March."}	[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.145865,0,0,0,0,-0.29173,0,0,0,0,0,0,0,0,0,0.29173,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.29173,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.29173,0,0,0,0,0,0.58346,-0.145865,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.29173,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.29173,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.145865,0,0,0,0,0,0,0,0,-0.145865,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.145865,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.145865,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.145865,0,0,0,0,0,0,0,0,0,0]	1
cf609acce3884fefb05e54b52ffcc1b4	6	["ben",null,null]	ben	\N	\N	Ben	2025-04-02 09:30:00+00	2026-12-04 10:46:31.099354+00	["ben-m1"]	hashing-256	{"id":"cf609acce3884fefb05e54b52ffcc1b4","scope":{"user_id":"ben","agent_id":null,"run_id":null},"speaker":"Ben","role":"user","source":null,"event_time":"2025-04-02T09:30:00Z","temporal_anchor":"2025-04-02","ingest_time":"2026-12-04T10:46:31.099354Z","provenance":["ben-m1"],"embedding_model":"hashing-256","metadata":{},"type":"semantic","fact":"Ben: Ben's kayak is painted orange and grey."}	[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.13867505,0,0,-0.2773501,0,0,0,0,0,0,-0.13867505,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.13867505,0,0,0,0,0.5547002,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.13867505,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.2773501,0,0,0,0,0,0,-0.13867505,0.13867505,0,0.2773501,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.13867505,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.13867505,0,-0.2773501,0,0,0,0.2773501,0,0,0,0,0,-0.2773501,0,0,0,0.2773501,0,0,0,0,0,0,0,0]	1
f6853345d89f4000bda87908c4bac53c	2	["ana",null,null]	ana	\N	\N	Ana	2025-04-02 09:30:00+00	2026-12-04 10:46:30.815419+00	["ana-m1"]	hashing-256	{"id":"f6853345d89f4000bda87908c4bac53c","scope":{"user_id":"ana","agent_id":null,"run_id":null},"speaker":"Ana","role":"user","source":null,"event_time":"2025-04-02T09:30:00Z","temporal_anchor":"2025-04-02","ingest_time":"2026-12-04T10:46:30.815419Z","provenance":["ana-m1"],"embedding_model":"hashing-256","metadata":{},"type":"semantic","fact":"Marisol bakes rye bread every Friday."}	[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.37139067,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.37139067,-0.18569534,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.37139067,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.37139067,0,0,0,0,0,0,0,0,0,0,0.37139067,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0.37139067,0,0,0,0,0,0,0,-0.18569534,0,0,0,0,0,0,0,0,0,0.18569534,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.18569534,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,-0.18569534,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]	2
\.


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

SELECT pg_catalog.setval('memdesk.migrations_pos_seq', 2, true);


--
-- Name: record_seq; Type: SEQUENCE SET; Schema: memdesk; Owner: -
--

SELECT pg_catalog.setval('memdesk.record_seq', 6, true);


--
-- Name: scopes_pos_seq; Type: SEQUENCE SET; Schema: memdesk; Owner: -
--

SELECT pg_catalog.setval('memdesk.scopes_pos_seq', 13, true);


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
-- Name: ix_history_record; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_history_record ON memdesk.history USING btree (record_id, version);


--
-- Name: ix_messages_agent; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_messages_agent ON memdesk.messages USING btree (agent_id);


--
-- Name: ix_messages_id; Type: INDEX; Schema: memdesk; Owner: -
--

CREATE INDEX ix_messages_id ON memdesk.messages USING btree (id);


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
-- Name: collection_items collection_items_note_change; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER collection_items_note_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON memdesk.collection_items FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_note_change();


--
-- Name: documents documents_note_change; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER documents_note_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON memdesk.documents FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_note_change();


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
-- Name: meta meta_note_change; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER meta_note_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON memdesk.meta FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_note_change();


--
-- Name: procedural_memory procedural_memory_note_change; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER procedural_memory_note_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON memdesk.procedural_memory FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_note_change();


--
-- Name: scopes scopes_note_change; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER scopes_note_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON memdesk.scopes FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_note_change();


--
-- Name: semantic_memory semantic_memory_note_change; Type: TRIGGER; Schema: memdesk; Owner: -
--

CREATE TRIGGER semantic_memory_note_change AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON memdesk.semantic_memory FOR EACH STATEMENT EXECUTE FUNCTION memdesk.memdesk_note_change();


--
-- PostgreSQL database dump complete
--

