#!/usr/bin/python3
"""Generates the local encoder's test fixtures: tiny BERT models with random
weights (2 layers, hidden 32 or 48, 4 heads, 276 tokens) in the
sentence-transformers folder layout, and reference outputs.

Run with Debian's interpreter, which has python3-torch and python3-numpy
(apt-get install python3-torch python3-numpy):

    /usr/bin/python3 model/local/testdata/gen_fixtures.py

No network and no transformers library: the BERT forward pass is written
out below in torch (embeddings + layer norm, multi-head self-attention
with the padding mask, GELU feed-forward, pooling, normalisation, the
classification head), run in float64 on the float32 weights over a padded
batch, so the Go encoder (which never pads) is checked against the masked
computation. The safetensors files are written by hand (header JSON, then
the little-endian bytes). Seeds are fixed: the output is the same on every
run of the same torch version.
"""
import json
import math
import os
import struct
import unicodedata

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))

WORDS = """the a an of to in on for with and or but is are was were be been it this that these those
i you he she we they me him her us them my your his our their what which who when where why how
not no yes all any some many much more most few less least one two three four five six seven eight
nine ten first last new old good bad big small long short high low fast slow hot cold warm cool
car engine failure winter summer road driver wheel brake battery oil fuel tank motor start stop
database index query search vector memory store entry thread tool server client model token text
word sentence passage document file folder path disk cache lock write read update delete insert
error bug crash fix patch test build run deploy release version branch merge commit review code
python go rust java script function method class type value key map list array string number
user agent team project task note plan goal idea question answer result score rank order time day
week month year today night morning evening city river mountain sea forest tree flower bird fish dog
cat horse book paper letter music song film game play work home school house room door window table
chair bed kitchen food water coffee tea bread apple orange sugar salt red green blue black white
café über naïve 日 本 語
""".split()
PIECES = "##s ##ed ##ing ##er ##ly ##est ##ion ##al ##ful ##ness ##able ##a ##e ##i ##o ##u ##n ##t ##r".split()
PUNCT = list(".,!?;:'\"()-/")
SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]


def vocab_list():
    seen, out = set(), []
    for w in SPECIAL + PUNCT + WORDS + PIECES:
        if w not in seen:
            seen.add(w)
            out.append(w)
    return out


# --- BERT basic tokenizer and WordPiece, as BertTokenizer does them -------

def _is_punct(ch):
    cp = ord(ch)
    if 33 <= cp <= 47 or 58 <= cp <= 64 or 91 <= cp <= 96 or 123 <= cp <= 126:
        return True
    return unicodedata.category(ch).startswith("P")


def _is_cjk(cp):
    return (0x4E00 <= cp <= 0x9FFF or 0x3400 <= cp <= 0x4DBF or 0x20000 <= cp <= 0x2A6DF
            or 0x2A700 <= cp <= 0x2B73F or 0x2B740 <= cp <= 0x2B81F or 0x2B820 <= cp <= 0x2CEAF
            or 0xF900 <= cp <= 0xFAFF or 0x2F800 <= cp <= 0x2FA1F)


def basic_tokenize(text, lower=True):
    out = []
    for ch in text:
        cp = ord(ch)
        if cp == 0 or cp == 0xFFFD or (unicodedata.category(ch).startswith("C") and ch not in "\t\n\r"):
            continue
        if ch in " \t\n\r" or unicodedata.category(ch) == "Zs":
            out.append(" ")
        elif _is_cjk(cp):
            out.append(" " + ch + " ")
        else:
            out.append(ch)
    words = []
    for w in "".join(out).split():
        if lower:
            w = w.lower()
            w = "".join(c for c in unicodedata.normalize("NFD", w) if unicodedata.category(c) != "Mn")
        cur = ""
        for ch in w:
            if _is_punct(ch):
                if cur:
                    words.append(cur)
                    cur = ""
                words.append(ch)
            else:
                cur += ch
        if cur:
            words.append(cur)
    return words


def wordpiece(words, vocab):
    ids = []
    for w in words:
        if len(w) > 100:
            ids.append(vocab["[UNK]"])
            continue
        start, pieces, bad = 0, [], False
        while start < len(w):
            end, cur = len(w), None
            while start < end:
                sub = w[start:end]
                if start > 0:
                    sub = "##" + sub
                if sub in vocab:
                    cur = sub
                    break
                end -= 1
            if cur is None:
                bad = True
                break
            pieces.append(vocab[cur])
            start = end
        ids.extend([vocab["[UNK]"]] if bad else pieces)
    return ids


def encode(text, vocab, max_len):
    ids = wordpiece(basic_tokenize(text), vocab)[: max_len - 2]
    return [vocab["[CLS]"]] + ids + [vocab["[SEP]"]], [0] * (len(ids) + 2)


def encode_pair(a, b, vocab, max_len):
    x, y = wordpiece(basic_tokenize(a), vocab), wordpiece(basic_tokenize(b), vocab)
    budget = max_len - 3
    if len(x) + len(y) > budget:  # LongestFirst as the (fast) tokenizers library cuts
        n1, n2, swap = len(x), len(y), len(x) > len(y)
        if swap:
            n1, n2 = n2, n1
        n2 = n1 if n1 > budget else max(n1, budget - n1)
        if n1 + n2 > budget:
            n1 = budget // 2
            n2 = n1 + budget % 2
        if swap:
            n1, n2 = n2, n1
        x, y = x[:n1], y[:n2]
    ids = [vocab["[CLS]"]] + x + [vocab["[SEP]"]] + y + [vocab["[SEP]"]]
    return ids, [0] * (len(x) + 2) + [1] * (len(y) + 1)


# --- the model --------------------------------------------------------------

def make_weights(g, cfg, prefix="", classifier=False):
    h, it, v, p = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"], cfg["max_position_embeddings"]
    W = {}

    def rnd(*shape, std=0.3):
        return (torch.randn(*shape, generator=g, dtype=torch.float64) * std).float()

    def ln(name):
        W[name + ".weight"] = (1 + rnd(h, std=0.1))
        W[name + ".bias"] = rnd(h, std=0.1)

    def lin(name, o, i):
        W[name + ".weight"] = rnd(o, i, std=1 / math.sqrt(i))
        W[name + ".bias"] = rnd(o, std=0.1)

    W[prefix + "embeddings.word_embeddings.weight"] = rnd(v, h, std=1.0)
    W[prefix + "embeddings.position_embeddings.weight"] = rnd(p, h, std=0.5)
    W[prefix + "embeddings.token_type_embeddings.weight"] = rnd(cfg["type_vocab_size"], h, std=0.5)
    ln(prefix + "embeddings.LayerNorm")
    for i in range(cfg["num_hidden_layers"]):
        q = f"{prefix}encoder.layer.{i}."
        # Query and key a little larger, so attention is far from uniform.
        for n in ("query", "key"):
            W[q + f"attention.self.{n}.weight"] = rnd(h, h, std=2.5 / math.sqrt(h))
            W[q + f"attention.self.{n}.bias"] = rnd(h, std=0.1)
        lin(q + "attention.self.value", h, h)
        lin(q + "attention.output.dense", h, h)
        ln(q + "attention.output.LayerNorm")
        lin(q + "intermediate.dense", it, h)
        lin(q + "output.dense", h, it)
        ln(q + "output.LayerNorm")
    if classifier:
        lin(prefix + "pooler.dense", h, h)
        lin("classifier", 1, h)
    return W


def gelu(x):
    return 0.5 * x * (1 + torch.erf(x / math.sqrt(2)))


def layer_norm(x, w, b, eps):
    mu = x.mean(-1, keepdim=True)
    var = ((x - mu) ** 2).mean(-1, keepdim=True)
    return (x - mu) / torch.sqrt(var + eps) * w + b


def bert_forward(W, cfg, ids, types, prefix=""):
    """ids, types: lists of lists (unpadded). Returns hidden states
    (batch, maxlen, h) and the mask, computed on the padded batch."""
    d = lambda n: W[prefix + n].double()
    B, L = len(ids), max(len(x) for x in ids)
    h, nh = cfg["hidden_size"], cfg["num_attention_heads"]
    dh, eps = h // nh, cfg["layer_norm_eps"]
    tid = torch.zeros(B, L, dtype=torch.long)
    tty = torch.zeros(B, L, dtype=torch.long)
    mask = torch.zeros(B, L, dtype=torch.float64)
    for i, (x, t) in enumerate(zip(ids, types)):
        tid[i, : len(x)] = torch.tensor(x)
        tty[i, : len(t)] = torch.tensor(t)
        mask[i, : len(x)] = 1
    pos = torch.arange(L).unsqueeze(0).expand(B, L)
    x = d("embeddings.word_embeddings.weight")[tid] + d("embeddings.position_embeddings.weight")[pos] \
        + d("embeddings.token_type_embeddings.weight")[tty]
    x = layer_norm(x, d("embeddings.LayerNorm.weight"), d("embeddings.LayerNorm.bias"), eps)
    ext = (1.0 - mask)[:, None, None, :] * torch.finfo(torch.float64).min
    for li in range(cfg["num_hidden_layers"]):
        p = f"encoder.layer.{li}."
        lin = lambda n, v: v @ d(p + n + ".weight").T + d(p + n + ".bias")
        split = lambda t: t.view(B, L, nh, dh).transpose(1, 2)
        q, k, v = split(lin("attention.self.query", x)), split(lin("attention.self.key", x)), split(lin("attention.self.value", x))
        s = q @ k.transpose(-1, -2) / math.sqrt(dh) + ext
        a = torch.softmax(s, dim=-1) @ v
        a = a.transpose(1, 2).reshape(B, L, h)
        x = layer_norm(lin("attention.output.dense", a) + x, d(p + "attention.output.LayerNorm.weight"), d(p + "attention.output.LayerNorm.bias"), eps)
        f = gelu(lin("intermediate.dense", x))
        x = layer_norm(lin("output.dense", f) + x, d(p + "output.LayerNorm.weight"), d(p + "output.LayerNorm.bias"), eps)
    return x, mask


# --- files ------------------------------------------------------------------

def write_safetensors(path, tensors):
    header, offset, blobs = {}, 0, []
    for name in sorted(tensors):
        a = tensors[name].numpy().astype("<f4")
        b = a.tobytes()
        header[name] = {"dtype": "F32", "shape": list(a.shape), "data_offsets": [offset, offset + len(b)]}
        offset += len(b)
        blobs.append(b)
    header["__metadata__"] = {"format": "pt"}
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def write_json(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1, ensure_ascii=False)
        f.write("\n")


def write_vocab(dir, vocab):
    with open(os.path.join(dir, "vocab.txt"), "w", encoding="utf-8") as f:
        for w in vocab:
            f.write(w + "\n")


def write_tokenizer_json(dir, vocab, max_len):
    ids = {w: i for i, w in enumerate(vocab)}
    write_json(os.path.join(dir, "tokenizer.json"), {
        "version": "1.0",
        "truncation": {"direction": "Right", "max_length": max_len, "strategy": "LongestFirst", "stride": 0},
        "padding": None,
        "added_tokens": [{"id": ids[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True} for t in SPECIAL],
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {"type": "TemplateProcessing",
                           "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                                      {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
                           "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                                    {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}},
                                    {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
                           "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [ids["[CLS]"]], "tokens": ["[CLS]"]},
                                              "[SEP]": {"id": "[SEP]", "ids": [ids["[SEP]"]], "tokens": ["[SEP]"]}}},
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": ids},
    })


def config(vocab_size, classification=False, hidden=32):
    c = {
        "architectures": ["BertForSequenceClassification" if classification else "BertModel"],
        "attention_probs_dropout_prob": 0.1, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
        "hidden_size": hidden, "initializer_range": 0.02, "intermediate_size": 2 * hidden, "layer_norm_eps": 1e-12,
        "max_position_embeddings": 64, "model_type": "bert", "num_attention_heads": 4,
        "num_hidden_layers": 2, "pad_token_id": 0, "position_embedding_type": "absolute",
        "torch_dtype": "float32", "type_vocab_size": 2, "vocab_size": vocab_size,
    }
    if classification:
        c["id2label"] = {"0": "LABEL_0"}
        c["label2id"] = {"LABEL_0": 0}
    return c


TEXTS = [
    "The car engine failure in winter",
    "A driver fixed the brake; the battery was dead!",
    "Search the database index for a vector.",
    "Café über naïve",
    "unknownword xyzzy and 日本語 text",
    "tests testing tested tester",
    "hello",
    "one two three four five six seven eight nine ten one two three four five six seven eight nine ten one two three four five six",
]
QUERIES = ["engine failure", "how to fix a bug in the code?"]
PAIRS = [
    ("engine failure in winter", "The car engine failure in winter was caused by the battery."),
    ("engine failure in winter", "A song about the sea and a bird."),
    ("how to fix a bug", "Write a test, run it, then patch the code and commit the fix."),
    ("one two three four five six seven eight nine ten", "one two three four five six seven eight nine ten one two three four five six seven eight nine ten one two three four five"),
    ("database index search query vector memory store entry thread tool server client model token text word sentence",
     "passage document file folder path disk cache lock write read update delete insert error bug crash fix patch test"),
]


def r(x):
    return [float("%.9g" % v) for v in x]


def sentence_model(name, seed, pooling, normalize, max_len, prompts, vocab_file, tok_file, hidden=32):
    d = os.path.join(HERE, name)
    os.makedirs(d, exist_ok=True)
    vocab = vocab_list()
    vid = {w: i for i, w in enumerate(vocab)}
    cfg = config(len(vocab), hidden=hidden)
    g = torch.Generator().manual_seed(seed)
    W = make_weights(g, cfg)
    write_json(os.path.join(d, "config.json"), cfg)
    write_safetensors(os.path.join(d, "model.safetensors"), W)
    if vocab_file:
        write_vocab(d, vocab)
    if tok_file:
        write_tokenizer_json(d, vocab, max_len)
    write_json(os.path.join(d, "tokenizer_config.json"), {"do_lower_case": True, "model_max_length": 512,
                                                          "tokenizer_class": "BertTokenizer", "unk_token": "[UNK]",
                                                          "cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]"})
    write_json(os.path.join(d, "sentence_bert_config.json"), {"max_seq_length": max_len, "do_lower_case": False})
    mods = [{"idx": 0, "name": "0", "path": "", "type": "sentence_transformers.models.Transformer"},
            {"idx": 1, "name": "1", "path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}]
    if normalize:
        mods.append({"idx": 2, "name": "2", "path": "2_Normalize", "type": "sentence_transformers.models.Normalize"})
        os.makedirs(os.path.join(d, "2_Normalize"), exist_ok=True)
    write_json(os.path.join(d, "modules.json"), mods)
    write_json(os.path.join(d, "1_Pooling", "config.json"), {
        "word_embedding_dimension": cfg["hidden_size"], "pooling_mode_cls_token": pooling == "cls",
        "pooling_mode_mean_tokens": pooling == "mean", "pooling_mode_max_tokens": False,
        "pooling_mode_mean_sqrt_len_tokens": False, "pooling_mode_weightedmean_tokens": False,
        "pooling_mode_lasttoken": False, "include_prompt": True})
    if prompts:
        write_json(os.path.join(d, "config_sentence_transformers.json"),
                   {"prompts": prompts, "default_prompt_name": None, "similarity_fn_name": "cosine"})

    def embed(texts):
        enc = [encode(t, vid, max_len) for t in texts]
        ids, types = [e[0] for e in enc], [e[1] for e in enc]
        x, mask = bert_forward(W, cfg, ids, types)
        if pooling == "mean":
            v = (x * mask[..., None]).sum(1) / mask.sum(1, keepdim=True)
        else:
            v = x[:, 0]
        if normalize:
            v = v / v.norm(dim=-1, keepdim=True)
        return ids, [r(e.tolist()) for e in v]

    ids, embs = embed(TEXTS)
    ref = {"max_seq_length": max_len, "pooling": pooling, "normalize": normalize,
           "texts": TEXTS, "ids": ids, "embeddings": embs}
    if prompts:
        qids, qembs = embed([prompts["query"] + q for q in QUERIES])
        pids, pembs = embed([prompts["passage"] + t for t in TEXTS[:3]])
        ref.update({"queries": QUERIES, "query_ids": qids, "query_embeddings": qembs,
                    "passages": TEXTS[:3], "passage_ids": pids, "passage_embeddings": pembs})
    write_json(os.path.join(d, "reference.json"), ref)


def cross_encoder(name, seed, max_len):
    d = os.path.join(HERE, name)
    os.makedirs(d, exist_ok=True)
    vocab = vocab_list()
    vid = {w: i for i, w in enumerate(vocab)}
    cfg = config(len(vocab), classification=True)
    g = torch.Generator().manual_seed(seed)
    W = make_weights(g, cfg, prefix="bert.", classifier=True)
    write_json(os.path.join(d, "config.json"), cfg)
    write_safetensors(os.path.join(d, "model.safetensors"), W)
    write_vocab(d, vocab)
    write_json(os.path.join(d, "tokenizer_config.json"), {"do_lower_case": True, "model_max_length": max_len,
                                                          "tokenizer_class": "BertTokenizer"})
    enc = [encode_pair(q, p, vid, max_len) for q, p in PAIRS]
    ids, types = [e[0] for e in enc], [e[1] for e in enc]
    x, _ = bert_forward(W, cfg, ids, types, prefix="bert.")
    cls = x[:, 0]
    pooled = torch.tanh(cls @ W["bert.pooler.dense.weight"].double().T + W["bert.pooler.dense.bias"].double())
    logits = pooled @ W["classifier.weight"].double().T + W["classifier.bias"].double()
    logits = logits[:, 0]
    write_json(os.path.join(d, "reference.json"), {
        "max_length": max_len, "pairs": [list(p) for p in PAIRS], "ids": ids, "types": types,
        "logits": r(logits.tolist()), "scores": r(torch.sigmoid(logits).tolist())})


if __name__ == "__main__":
    torch.set_num_threads(1)
    sentence_model("mean-norm", 1, "mean", True, 24, {"query": "query: ", "passage": "passage: "}, True, False)
    # Hidden 48 over 4 heads: head size 12, not a multiple of the kernel's
    # 8 lanes, so attention's products take the portable path; and a
    # second dimension for the model-change tests.
    sentence_model("cls", 2, "cls", False, 64, None, False, True, hidden=48)
    cross_encoder("cross", 3, 32)
    print("fixtures written under", HERE)
