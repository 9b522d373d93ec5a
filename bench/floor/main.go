// Command floor is the floors of make bench: servers that do nothing but
// answer, measured in the same run, on the same machine, with the same
// client as the service, so that every figure of the service stands beside
// the least its kind of work can cost here.
//
//	floor http [-busy FILE] [-health FILE] [-result FILE]  an echo server: POST /api/v1/refactor answers the
//	                                                   busy 503 body, GET /health the health body,
//	                                                   POST /floor/result the body of a 200 run; it prints
//	                                                   "listening ADDR" and serves until stdin closes
//	floor mcp -answer FILE                             an mcp-go stdio server whose get_method_source answers
//	                                                   the given tools/call result (pharo-sim's, captured)
//	floor pipe                                         a bare JSON-RPC echo over stdin/stdout: the first line is
//	                                                   the result it answers every request with
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"

	"github.com/labstack/echo/v4"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// maxBody bounds a request body the echo server reads, as the service's
// default MAX_BODY_BYTES does.
const maxBody = 64 << 10

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: floor http|mcp|pipe [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "http":
		err = serveHTTP(os.Args[2:], os.Stdin, os.Stdout)
	case "mcp":
		err = serveMCP(os.Args[2:], os.Stdin, os.Stdout)
	case "pipe":
		err = pipeEcho(os.Stdin, os.Stdout)
	default:
		err = fmt.Errorf("unknown floor %q (http, mcp, pipe)", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}

// serveHTTP is the HTTP floor: an echo server with one bare handler per
// route given (no middleware), each reading the request body and answering
// a canned body the bench captured from the service.
func serveHTTP(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("floor http", flag.ContinueOnError)
	busyFile := fs.String("busy", "", "the service's busy 503 body (POST /api/v1/refactor)")
	healthFile := fs.String("health", "", "the service's /health body (GET /health)")
	resultFile := fs.String("result", "", "the service's 200 body of a run (POST /floor/result)")
	retryAfter := fs.String("retry-after", "1", "the Retry-After of the busy answer")
	if err := fs.Parse(args); err != nil {
		return err
	}
	e := echo.New()
	e.HideBanner, e.HidePort = true, true
	for _, r := range []struct {
		file, method, path string
		status             int
		contentType        string
		header             map[string]string
	}{
		{*busyFile, http.MethodPost, "/api/v1/refactor", http.StatusServiceUnavailable, "application/problem+json", map[string]string{"Retry-After": *retryAfter}},
		{*healthFile, http.MethodGet, "/health", http.StatusOK, echo.MIMEApplicationJSON, nil},
		{*resultFile, http.MethodPost, "/floor/result", http.StatusOK, echo.MIMEApplicationJSON, nil},
	} {
		if r.file == "" {
			continue
		}
		body, err := os.ReadFile(r.file)
		if err != nil {
			return err
		}
		e.Add(r.method, r.path, func(c echo.Context) error {
			if err := drain(c.Request()); err != nil {
				return err
			}
			for k, v := range r.header {
				c.Response().Header().Set(k, v)
			}
			return c.Blob(r.status, r.contentType, body)
		})
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: e}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	if _, err := fmt.Fprintf(stdout, "listening %s\n", ln.Addr()); err != nil {
		return err
	}
	stopped := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, stdin); close(stopped) }()
	select {
	case err := <-served:
		return err
	case <-stopped:
		return srv.Shutdown(context.Background())
	}
}

// drain reads the request body (up to maxBody), as any handler must.
func drain(r *http.Request) error {
	_, err := io.Copy(io.Discard, io.LimitReader(r.Body, maxBody))
	return err
}

// serveMCP is mcp-go's own floor: an mcp-go server on stdio whose one tool,
// get_method_source, answers a canned result (pharo-sim's answer to the
// same call, its text and structured content as they were).
func serveMCP(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("floor mcp", flag.ContinueOnError)
	answerFile := fs.String("answer", "", "a tools/call result (JSON) to answer every call with")
	if err := fs.Parse(args); err != nil {
		return err
	}
	data, err := os.ReadFile(*answerFile)
	if err != nil {
		return err
	}
	answer, err := cannedResult(data)
	if err != nil {
		return err
	}
	s := server.NewMCPServer("floor", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("get_method_source",
		mcp.WithString("class_name", mcp.Required()), mcp.WithString("method_name", mcp.Required()),
		mcp.WithBoolean("is_class_method")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) { return answer, nil })
	return server.NewStdioServer(s).Listen(context.Background(), stdin, stdout)
}

// cannedResult reads a tools/call result into the value the server
// answers: its content items and its structured content, kept as the raw
// JSON it was, so that the floor sends the same bytes.
func cannedResult(data []byte) (*mcp.CallToolResult, error) {
	var raw struct {
		Content           []mcp.TextContent `json:"content"`
		StructuredContent json.RawMessage   `json:"structuredContent"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("the answer is not a tools/call result: %w", err)
	}
	res := &mcp.CallToolResult{}
	for _, c := range raw.Content {
		res.Content = append(res.Content, mcp.NewTextContent(c.Text))
	}
	if len(raw.StructuredContent) > 0 {
		res.StructuredContent = raw.StructuredContent
	}
	return res, nil
}

// pipeEcho is the floor under any stdio protocol: for every JSON-RPC
// request line it writes one response line carrying the result given on
// the first line, decoding the request and encoding the answer as a JSON-RPC
// peer must. It stops at EOF.
func pipeEcho(stdin io.Reader, stdout io.Writer) error {
	in := bufio.NewReaderSize(stdin, 1<<20)
	out := bufio.NewWriterSize(stdout, 1<<20)
	first, err := in.ReadBytes('\n')
	if err != nil {
		return fmt.Errorf("reading the result template: %w", err)
	}
	result := json.RawMessage(strings.TrimSpace(string(first)))
	if !json.Valid(result) {
		return errors.New("the result template is not JSON")
	}
	for {
		line, err := in.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		var req struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Method  string          `json:"method"`
			Params  json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(line, &req); err != nil {
			return fmt.Errorf("bad request line: %w", err)
		}
		reply, err := json.Marshal(struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
			Result  json.RawMessage `json:"result"`
		}{"2.0", req.ID, result})
		if err != nil {
			return err
		}
		if _, err := out.Write(append(reply, '\n')); err != nil {
			return err
		}
		if err := out.Flush(); err != nil {
			return err
		}
	}
}
