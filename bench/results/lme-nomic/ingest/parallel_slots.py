"""nomic through xllamacpp: one llama.cpp slot (texts decoded one after another, as GGUFEmbedder does) against
parallel slots with a unified KV cache (a call's texts decoded together): CPU and wall seconds for the same texts,
and how far the vectors move (they are saved; compare two runs' files with numpy).

    TH=2 NT=96 python parallel_slots.py 1,2048,2048          # n_parallel, n_ctx, n_batch(=n_ubatch)
    TH=2 NT=96 python parallel_slots.py 32,2048,2048 1       # ... and kv_unified
"""
import os
import re
import secrets
import sys
import time

os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
import numpy as np
import xllamacpp as xlc

from memdesk.eval.run import load_dataset

conv = load_dataset("longmemeval", None).conversations["75499fd8"]
texts = []
for m in conv.messages[:40]:
    for s in re.split(r"(?<=[.!?])\s+|\n+", m.content):
        if len(s) > 20:
            texts.append("search_document: " + s)
texts = texts[: int(os.environ.get("NT", "128"))]
path = os.path.expanduser("~/.local/share/memdesk/models/nomic-embed-text-v1.5.Q8_0.gguf")
npar, nctx, nb = (int(x) for x in sys.argv[1].split(","))
p = xlc.CommonParams()
p.model.path = path
p.embedding = True
p.n_ctx, p.n_batch, p.n_ubatch, p.n_parallel = nctx, nb, nb, npar
if len(sys.argv) > 2:
    p.kv_unified = sys.argv[2] == "1"
p.pooling_type = xlc.llama_pooling_type.LLAMA_POOLING_TYPE_MEAN
p.embd_normalize = 2
p.cpuparams.n_threads = p.cpuparams_batch.n_threads = int(os.environ.get("TH", "2"))
p.hostnames, p.api_keys, p.verbosity = ["127.0.0.1"], [secrets.token_hex(8)], -1
server = xlc.Server(p)
server.handle_embeddings({"input": texts[:4]})  # warm up
c0, t0, tokens, vectors = time.process_time(), time.perf_counter(), 0, []
for i in range(0, len(texts), 32):
    r = server.handle_embeddings({"input": texts[i : i + 32]})
    tokens += r["usage"]["prompt_tokens"]
    vectors += [d["embedding"] for d in sorted(r["data"], key=lambda d: d["index"])]
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
np.save(f"vectors_{sys.argv[1].replace(',', '_')}.npy", np.array(vectors))
print(sys.argv[1:], len(texts), "texts", tokens, "tokens", f"wall {wall:.2f} s, cpu {cpu:.1f} s, load {os.getloadavg()[0]:.1f}")
