package rank_test

import (
	"fmt"

	"github.com/contextd/contextd/internal/rank"
)

func ExampleFTSPassage() {
	hl := "Backups run nightly. The <mark>vector</mark> <mark>index</mark> is rebuilt from SQL after a crash. Logs rotate weekly."
	fmt.Println(rank.FTSPassage(hl, 30, 100, 1945))
	// Output: tly. The vector index is rebui
}
