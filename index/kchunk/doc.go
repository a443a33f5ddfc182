// Package kchunk owns how a knowledge document (an uploaded file's
// extracted text) is cut into chunks for search_knowledge: the Semantic,
// FixedSize and Recursive strategies of the requirements (B3) and the
// heading-aware chunking every Markdown file gets, with token counts by
// OpenAI's cl100k_base BPE (tiktoken-go, ranks embedded in the binary by
// tiktoken-go-loader: nothing is downloaded).
//
//	chunks, err := kchunk.Split(ctx, "guide.md", text, kchunk.Options{})
//	for _, c := range chunks {
//		// c.Text is indexed; text[c.Start:c.End] is its source (Markdown
//		// chunks prefix c.HeaderPath, e.g. "Guide > Install", and a blank line).
//	}
//	chunks, err = kchunk.Split(ctx, "notes.txt", text, kchunk.Options{
//		Strategy: kchunk.Semantic, Embed: embedder.EmbedBatch,
//	})
//
// The corpus-sync chunker of entries (index/chunk) is a different one: it
// counts code points and follows the MCP Context reference.
package kchunk
