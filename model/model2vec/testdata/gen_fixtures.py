#!/usr/bin/python3
"""Generates the Model2Vec fixtures of model/model2vec and their reference
vectors.

Two tiny models with random weights, saved as model2vec saves a
StaticModel (model.safetensors with the tensor "embeddings", tokenizer.json,
config.json), each with reference.json holding texts and the vectors
model2vec's StaticModel.encode defines for them:

  - tokens = tokenizer.encode(text[:512 * median_token_length],
    add_special_tokens=False), [UNK] removed, the first 512 kept (the
    median is over the characters of every vocabulary token, ## included);
  - vector = mean of the tokens' rows (rows embeddings[mapping[id]] scaled
    by weights[id] when the file has them: vocabulary-quantized models);
    the zero vector for a text without tokens;
  - divided by its norm + 1e-32 when config.json sets normalize.

  f16-norm:  embeddings F16 (as the published potion models ship them),
             uncased BERT normalizer, normalize true;
  quant-f32: embeddings F32 of 40 clusters with mapping (I64) and weights
             (F32), cased normalizer keeping accents, normalize false.

A third, st-static, is laid out as sentence-transformers saves a
StaticEmbedding model (modules.json: StaticEmbedding in 0_StaticEmbedding
with "embedding.weight", then Normalize), with that library's arithmetic:
every token of tokenizer.encode(text, add_special_tokens=False) averaged
([UNK] kept, no cut), then divided by max(norm, 1e-12).

The tokenizer is model/wordpiece/testdata/bert_reference.py, the
independent Python implementation the Go tokenizer is checked against.
The means are computed in float64 from the stored (float16 or float32)
values; model2vec itself averages float16 rows in float16, which differs
from the exact mean by up to about 1e-3.

Needs Debian's python3-numpy (/usr/bin/python3; apt-get install
python3-numpy) and nothing else:

    /usr/bin/python3 model/model2vec/testdata/gen_fixtures.py
"""

import json
import os
import struct
import sys

try:
    import numpy as np
except ImportError:
    sys.exit("gen_fixtures.py needs numpy: apt-get install python3-numpy, then run it with /usr/bin/python3")

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "wordpiece", "testdata"))
import bert_reference as bert  # noqa: E402

MAX_TOKENS = 512  # StaticModel.encode's default max_length
DIM = 24

WORDS = """the a an of to in is are was be on for with as by at from this that it not or and but
memory search vector index store query result agent model token embed text word cat dog sat ran
run runn ##ing ##ed ##s ##er ##ly un ##want want hello world cafe naive über straße привет мир
中 文 字 the quick brown fox jumps over lazy database server client error failure engine winter car
. , ! ? ' " - ( ) : ; [ ] / @ # $ % & * + = < > 0 1 2 3 4 5 6 7 8 9""".split()


def vocab_list(cased):
    v = list(bert.SPECIALS)
    letters = "abcdefghijklmnopqrstuvwxyzäöüéèßçñ"
    if cased:
        letters += "ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÜÉ"
    for w in WORDS + list(letters) + ["##" + c for c in letters]:
        if w not in v:
            v.append(w)
    if cased:
        for w in ["Hello", "World", "Über", "Straße", "Café", "Naïve"]:
            v.append(w)
    return v


def write_safetensors(path, tensors):
    """tensors: name -> (dtype name, numpy array already in that dtype)."""
    header, offset, blobs = {}, 0, []
    for name in sorted(tensors):
        dtype, a = tensors[name]
        b = a.tobytes()
        header[name] = {"dtype": dtype, "shape": list(a.shape), "data_offsets": [offset, offset + len(b)]}
        offset += len(b)
        blobs.append(b)
    header["__metadata__"] = {"generator": "gen_fixtures.py"}
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)  # the reference writer's alignment padding
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def write_json(path, obj):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, indent=1, ensure_ascii=False)
        f.write("\n")


def tokenizer_json(vocab, lower, strip):
    ids = {w: i for i, w in enumerate(vocab)}
    specials = {t: {"id": t, "ids": [ids[t]], "tokens": [t]} for t in ("[CLS]", "[SEP]")}
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": ids[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False,
                          "normalized": False, "special": True} for t in bert.SPECIALS],
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": strip, "lowercase": lower},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {"type": "TemplateProcessing",
                           "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                                      {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
                           "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                                    {"SpecialToken": {"id": "[SEP]", "type_id": 0}}, {"Sequence": {"id": "B", "type_id": 1}},
                                    {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
                           "special_tokens": specials},
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": ids},
    }


TEXTS = [
    "The quick brown fox jumps over the lazy dog.",
    "Hello, World! Über Straße, Café and Naïve.",
    "memory search: vector index store (query result)",
    "unwanted running runner",
    "привет мир 中文字",
    "zzz qqq xyzzy",                      # letters only as pieces or [UNK]
    "[CLS] agent [MASK] model [SEP]",     # special tokens typed in the text stay
    "",                                    # no tokens: the zero vector
    "%%%",
    "database server client error failure engine winter car " * 120,  # cut at 512 * median characters
    "a.b," * 500,                         # 1 token per character: cut at 512 tokens too
    "a" * 99 + " " + "b" * 101,           # a 101-character word is [UNK], dropped
    "Éé\tÜü\u00a0ß\x00ç",
]


def build(name, seed, cased, lower, strip, normalize, quantized, dtype):
    rng = np.random.default_rng(seed)
    vocab = vocab_list(cased)
    V = len(vocab)
    out = os.path.join(HERE, name)
    os.makedirs(out, exist_ok=True)
    tensors = {}
    if quantized:
        K = 40
        table = rng.normal(0, 0.5, (K, DIM)).astype("<f4")
        mapping = rng.integers(0, K, V).astype("<i8")
        weights = rng.uniform(0.2, 2.0, V).astype("<f4")
        tensors = {"embeddings": ("F32", table), "mapping": ("I64", mapping), "weights": ("F32", weights)}
        rows = table.astype(np.float64)[mapping] * weights.astype(np.float64)[:, None]
    else:
        table = rng.normal(0, 0.5, (V, DIM)).astype("<f2" if dtype == "F16" else "<f4")
        tensors = {"embeddings": (dtype, table)}
        rows = table.astype(np.float64)
    write_safetensors(os.path.join(out, "model.safetensors"), tensors)
    write_json(os.path.join(out, "tokenizer.json"), tokenizer_json(vocab, lower, strip))
    config = {"model_type": "model2vec", "architectures": ["StaticModel"], "tokenizer_name": "fixture",
              "apply_pca": DIM, "apply_zipf": True, "hidden_dim": DIM, "seq_length": 1000000,
              "normalize": normalize}
    if quantized:
        config["vocabulary_quantization"] = 40
    write_json(os.path.join(out, "config.json"), config)

    index = {w: i for i, w in enumerate(vocab)}
    vset = set(vocab)
    median = int(np.median([len(t) for t in vocab]))
    unk = index["[UNK]"]
    refs = []
    strip_eff = lower if strip is None else strip  # BertNormalizer: null follows lowercase
    for text in TEXTS:
        t = text[:MAX_TOKENS * median]
        ids = [index[x] for x in bert.tokenize(t, vset, lower, strip_eff)]
        ids = [i for i in ids if i != unk][:MAX_TOKENS]
        v = rows[ids].mean(axis=0) if ids else np.zeros(DIM)
        if normalize:
            v = v / (np.linalg.norm(v) + 1e-32)
        refs.append({"text": text, "ids": ids, "vector": [round(float(x), 7) for x in v]})
    write_json(os.path.join(out, "reference.json"),
               {"generator": "gen_fixtures.py", "median_token_length": median, "dim": DIM, "cases": refs})
    print(f"{name}: vocab {V}, median token length {median}, {len(refs)} texts")


def build_st(name, seed):
    rng = np.random.default_rng(seed)
    vocab = vocab_list(False)
    out = os.path.join(HERE, name)
    sub = os.path.join(out, "0_StaticEmbedding")
    os.makedirs(sub, exist_ok=True)
    table = rng.normal(0, 0.5, (len(vocab), DIM)).astype("<f4")
    write_safetensors(os.path.join(sub, "model.safetensors"), {"embedding.weight": ("F32", table)})
    write_json(os.path.join(sub, "tokenizer.json"), tokenizer_json(vocab, True, None))
    write_json(os.path.join(out, "modules.json"), [
        {"idx": 0, "name": "0", "path": "0_StaticEmbedding", "type": "sentence_transformers.models.StaticEmbedding"},
        {"idx": 1, "name": "1", "path": "1_Normalize", "type": "sentence_transformers.models.Normalize"}])
    write_json(os.path.join(out, "config_sentence_transformers.json"),
               {"model_type": "SentenceTransformer", "prompts": {}, "similarity_fn_name": "cosine"})
    index = {w: i for i, w in enumerate(vocab)}
    vset = set(vocab)
    rows = table.astype(np.float64)
    refs = []
    for text in TEXTS:
        ids = [index[x] for x in bert.tokenize(text, vset, True, True)]
        v = rows[ids].mean(axis=0) if ids else np.zeros(DIM)
        v = v / max(np.linalg.norm(v), 1e-12)
        refs.append({"text": text, "ids": ids, "vector": [round(float(x), 7) for x in v]})
    write_json(os.path.join(out, "reference.json"),
               {"generator": "gen_fixtures.py", "layout": "sentence-transformers", "dim": DIM, "cases": refs})
    print(f"{name}: vocab {len(vocab)}, {len(refs)} texts")


def main():
    build("f16-norm", 7, cased=False, lower=True, strip=None, normalize=True, quantized=False, dtype="F16")
    build("quant-f32", 8, cased=True, lower=False, strip=False, normalize=False, quantized=True, dtype="F32")
    build_st("st-static", 9)


if __name__ == "__main__":
    main()
