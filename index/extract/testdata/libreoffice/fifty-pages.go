//go:build ignore

// fifty-pages.go writes fifty-pages.html, the source of fifty-pages.pdf:
// 50 sections of deterministic prose (fixed seed), each starting on a new
// page with a unique marker sentence, so a test can check every page.
//
//	go run fifty-pages.go > fifty-pages.html
package main

import (
	"fmt"
	"math/rand"
	"strings"
)

func main() {
	rng := rand.New(rand.NewSource(50))
	words := strings.Fields(`harbour tide gauge survey vessel quay berth dredging silt channel
	current wind storm pilot crane cargo container ferry lighthouse buoy anchor mooring
	engineer inspector report measurement depth sediment erosion breakwater pier basin
	season winter autumn spring summer morning evening crew captain schedule maintenance
	concrete steel timber rope signal radio chart compass beacon warning record`)
	fmt.Println(`<!DOCTYPE html><html><head><meta charset="utf-8"><title>Harbour Operations Log</title></head><body>`)
	for page := 1; page <= 50; page++ {
		style := ""
		if page > 1 {
			style = ` style="page-break-before: always"`
		}
		fmt.Printf("<h2%s>Section %d</h2>\n", style, page)
		fmt.Printf("<p>Section %d records marker word page%02dmarker for the benchmark.</p>\n", page, page)
		for p := 0; p < 4; p++ {
			var b strings.Builder
			for s := 0; s < 4; s++ {
				n := 8 + rng.Intn(10)
				for w := 0; w < n; w++ {
					word := words[rng.Intn(len(words))]
					if w == 0 {
						word = strings.ToUpper(word[:1]) + word[1:]
					}
					b.WriteString(word)
					if w < n-1 {
						b.WriteByte(' ')
					}
				}
				b.WriteString(". ")
			}
			fmt.Printf("<p>%s</p>\n", strings.TrimSpace(b.String()))
		}
	}
	fmt.Println(`</body></html>`)
}
