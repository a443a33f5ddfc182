package rerank_test

import (
	"fmt"

	"github.com/contextd/contextd/rerank"
)

func ExampleFTSPassage() {
	hl := "Backups run nightly. The <mark>vector</mark> <mark>index</mark> is rebuilt from SQL after a crash. Logs rotate weekly."
	fmt.Println(rerank.FTSPassage(hl, 30, 100, 1945))
	// Output: tly. The vector index is rebui
}
