package config

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// The Python original read its settings with pydantic from the environment
// and a .env file, names in any case: APP_NAME, APP_VERSION, DEBUG,
// GOOGLE_API_KEY, MODEL_ID, PHARO_SERVER_URL, PHARO_MCP_SERVER_COMMAND,
// PHARO_MCP_SERVER_ARGS (a JSON list), PHARO_MCP_SERVER_CWD,
// PHARO_MCP_TIMEOUT (seconds), MAX_VALIDATION_ITERATIONS, CORS_ORIGINS,
// CORS_ALLOW_CREDENTIALS, CORS_ALLOW_METHODS and CORS_ALLOW_HEADERS; Google's
// agent kit read GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_CLOUD_PROJECT and
// GOOGLE_CLOUD_LOCATION from the same .env. Those with the same name and
// meaning here are read as they are. The others are either aliases of a
// variable of this service, read with a one-line deprecation notice, or mean
// nothing here and are named at start-up — never silently ignored, so that
// the original's .env cannot start this service "healthy" on the wrong MCP
// server.

// original is one of the original's variables that this service does not
// read under its own name.
type original struct {
	name string
	// native is the variable of this service it stands for; "" when none.
	native string
	// convert turns the original's value into the native's form; use false:
	// there is nothing to read. nil: the value as it is.
	convert func(string) (value string, use bool, err error)
	// ignored says why it means nothing here (native "").
	ignored string
}

// pharoServerURL is handled apart: it becomes environment of the MCP server.
const pharoServerURL = "PHARO_SERVER_URL"

func originals() []original {
	return []original{
		{name: "PHARO_MCP_SERVER_COMMAND", native: "PHARO_MCP_COMMAND"},
		{name: "PHARO_MCP_SERVER_ARGS", native: "PHARO_MCP_ARGS"}, // a JSON list is read as such
		{name: "PHARO_MCP_SERVER_CWD", native: "PHARO_MCP_CWD"},
		{name: "CORS_ORIGINS", native: "CORS_ALLOW_ORIGINS", convert: listedOrigins},
		{name: "DEBUG", native: "LOG_LEVEL", convert: debugLevel},
		{name: "CORS_ALLOW_CREDENTIALS", ignored: "no page is ever sent credentials (cookies); API keys go in the Authorization header"},
		{name: "CORS_ALLOW_METHODS", ignored: "an allowed origin may use the API's own methods (GET, POST)"},
		{name: "CORS_ALLOW_HEADERS", ignored: "an allowed origin may send the API's own headers (Content-Type, Authorization, Accept, X-Request-ID, Prefer)"},
		{name: "GOOGLE_GENAI_USE_VERTEXAI", ignored: "Vertex AI is not supported: Gemini is reached with GEMINI_API_KEY or GOOGLE_API_KEY"},
		{name: "GOOGLE_CLOUD_PROJECT", ignored: "Vertex AI is not supported: Gemini is reached with GEMINI_API_KEY or GOOGLE_API_KEY"},
		{name: "GOOGLE_CLOUD_LOCATION", ignored: "Vertex AI is not supported: Gemini is reached with GEMINI_API_KEY or GOOGLE_API_KEY"},
	}
}

// isOriginal reports whether name is one of originals or PHARO_SERVER_URL.
func isOriginal(name string) bool {
	return name == pharoServerURL || slices.ContainsFunc(originals(), func(o original) bool { return o.name == name })
}

// listedOrigins reads the original's CORS_ORIGINS (a JSON list or a comma
// list) as CORS_ALLOW_ORIGINS; its default "*" lets in every page, which
// this service never does, so it is dropped.
func listedOrigins(v string) (string, bool, error) {
	var kept []string
	for _, o := range strings.Split(strings.Trim(strings.TrimSpace(v), "[]"), ",") {
		if o = strings.Trim(strings.TrimSpace(o), `"'`); o != "" && o != "*" {
			kept = append(kept, o)
		}
	}
	return strings.Join(kept, ","), len(kept) > 0, nil
}

// debugLevel reads the original's DEBUG (a boolean, as pydantic reads it)
// as LOG_LEVEL=debug.
func debugLevel(v string) (string, bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true", "t", "yes", "y", "on":
		return "debug", true, nil
	case "0", "false", "f", "no", "n", "off", "":
		return "", false, nil
	}
	return "", false, fmt.Errorf("DEBUG=%s: must be true or false", v)
}

// sources is where the variables come from: the environment, then .env. It
// records what the reader asked for and which of the original's names it
// read, and collects the notices about them.
type sources struct {
	getenv Getenv
	dotenv map[string]string // keys upper-cased
	asked  map[string]bool
	used   map[string]bool // original names read or named
	notes  []string
	errs   []error
}

func newSources(getenv Getenv, dotenv map[string]string) *sources {
	upper := map[string]string{}
	for k, v := range dotenv {
		key := strings.ToUpper(k)
		if _, exact := dotenv[key]; exact && key != k {
			continue // the key as this service spells it wins
		}
		upper[key] = v
	}
	return &sources{getenv: getenv, dotenv: upper, asked: map[string]bool{}, used: map[string]bool{}}
}

func (s *sources) raw(key string) (string, bool) {
	if v, ok := s.getenv(key); ok {
		return v, true
	}
	v, ok := s.dotenv[key]
	return v, ok
}

func (s *sources) note(n string) {
	if !slices.Contains(s.notes, n) {
		s.notes = append(s.notes, n)
	}
}

// lookup answers key, or else the original's name for it (deprecated).
func (s *sources) lookup(key string) (string, bool) {
	s.asked[key] = true
	value, set := s.raw(key)
	for _, o := range originals() {
		if o.native != key {
			continue
		}
		alias, aliasSet := s.raw(o.name)
		if !aliasSet {
			continue
		}
		s.used[o.name] = true
		if set {
			s.note(fmt.Sprintf("%s (the original service's name for %s) is ignored: %s is set; remove %s", o.name, key, key, o.name))
			continue
		}
		v, use := alias, true
		if o.convert != nil {
			var err error
			if v, use, err = o.convert(alias); err != nil {
				s.errs = append(s.errs, err)
			}
		}
		if !use {
			s.note(fmt.Sprintf("%s is deprecated (the original service's name): %q sets no %s here; rename it", o.name, alias, key))
			continue
		}
		s.note(fmt.Sprintf("%s is deprecated (the original service's name): read as %s; rename it", o.name, key))
		return v, true
	}
	return value, set
}

// applyOriginals reads what has no variable of its own here, and names
// every variable of .env (and every original one in the environment) that
// means nothing here.
func (s *sources) applyOriginals(r *reader, c *Config) {
	r.errs = append(r.errs, s.errs...)
	if v, ok := s.raw(pharoServerURL); ok && strings.TrimSpace(v) != "" {
		s.used[pharoServerURL] = true
		if err := c.addServerURL(strings.TrimSpace(v)); err != nil {
			r.errs = append(r.errs, err)
		} else {
			s.note(pharoServerURL + " is deprecated (the original service's name): passed to the MCP server's environment as " +
				"PHARO_SERVER_URL and PHARO_SIS_PORT, as the original did; set PHARO_MCP_ENV instead")
		}
	}
	for _, o := range originals() {
		if _, ok := s.raw(o.name); ok && o.ignored != "" {
			s.used[o.name] = true
			s.note(fmt.Sprintf("%s (the original service's) has no meaning here and is ignored: %s", o.name, o.ignored))
		}
	}
	var unknown []string
	for key := range s.dotenv {
		if !s.asked[key] && !s.used[key] && !isOriginal(key) {
			unknown = append(unknown, key)
		}
	}
	slices.Sort(unknown)
	for _, key := range unknown {
		s.note(key + " (in .env) is not a variable of this service and is ignored")
	}
}

// notices are the lines start-up logs about the variables read.
func (s *sources) notices() []string { return s.notes }

// addServerURL passes the original's PHARO_SERVER_URL to the MCP server as
// the original did (its server read PHARO_SERVER_URL), and its port as
// PHARO_SIS_PORT (what pharo-smalltalk-interop-mcp-server reads), unless
// PHARO_MCP_ENV sets them.
func (c *Config) addServerURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%s=%s: must be a URL such as http://localhost:8086", pharoServerURL, raw)
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	if _, err := strconv.Atoi(port); err != nil {
		return fmt.Errorf("%s=%s: must be a URL such as http://localhost:8086", pharoServerURL, raw)
	}
	for _, kv := range []string{pharoServerURL + "=" + raw, "PHARO_SIS_PORT=" + port} {
		name, _, _ := strings.Cut(kv, "=")
		if !slices.ContainsFunc(c.PharoMCPEnv, func(e string) bool { return strings.HasPrefix(e, name+"=") }) {
			c.PharoMCPEnv = append(c.PharoMCPEnv, kv)
		}
	}
	return nil
}
