package mcpstdio

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// fakeServer answers each request line of in on out as a stdio server
// with pages of tools would, after a notification it sends unasked.
func fakeServer(in io.Reader, out io.WriteCloser, pages [][]string) {
	defer out.Close()
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		var req struct {
			ID     *int   `json:"id"`
			Method string `json:"method"`
			Params struct {
				Cursor string `json:"cursor"`
			} `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &req) != nil || req.ID == nil {
			continue
		}
		fmt.Fprintln(out, `{"jsonrpc":"2.0","method":"notifications/message","params":{}}`)
		switch req.Method {
		case "initialize":
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%d,"result":{}}`+"\n", *req.ID)
		case "tools/list":
			page := 0
			fmt.Sscan(req.Params.Cursor, &page)
			var tools []string
			for _, n := range pages[page] {
				tools = append(tools, fmt.Sprintf(`{"name":%q}`, n))
			}
			next := ""
			if page+1 < len(pages) {
				next = fmt.Sprint(page + 1)
			}
			fmt.Fprintf(out, `{"jsonrpc":"2.0","id":%d,"result":{"tools":[%s],"nextCursor":%q}}`+"\n", *req.ID, strings.Join(tools, ","), next)
		}
	}
}

func TestListToolsPages(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	go fakeServer(inR, outW, [][]string{{"a", "b"}, {"c"}, {"d"}})
	tools, err := ListTools(inW, outR, `name "quoted"`)
	inW.Close()
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, raw := range tools {
		var tl struct{ Name string }
		if err := json.Unmarshal(raw, &tl); err != nil {
			t.Fatal(err)
		}
		names = append(names, tl.Name)
	}
	if strings.Join(names, ",") != "a,b,c,d" {
		t.Fatalf("tools %v, want a,b,c,d over three pages", names)
	}
}

func TestListToolsServerGone(t *testing.T) {
	_, err := ListTools(io.Discard, strings.NewReader(""), "t")
	if !errors.Is(err, ErrNoAnswer) {
		t.Fatalf("got %v, want ErrNoAnswer", err)
	}
	_, err = ListTools(io.Discard, strings.NewReader(`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"no"}}`+"\n"), "t")
	if err == nil || !strings.Contains(err.Error(), "initialize: no") {
		t.Fatalf("got %v, want the server's error", err)
	}
}

func TestFirstSentence(t *testing.T) {
	for in, want := range map[string]string{
		"Store a context entry. It may carry images.": "Store a context entry.",
		"  One line\nsecond line":                     "One line",
		"No full stop":                                "No full stop",
		"Version 1.2 is fine. Next.":                  "Version 1.2 is fine.",
	} {
		if got := FirstSentence(in); got != want {
			t.Errorf("FirstSentence(%q) = %q, want %q", in, got, want)
		}
	}
}
