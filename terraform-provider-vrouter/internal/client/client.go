// Package client is a thin client of vrouter's REST API (docs/openapi.yaml), only the calls the provider
// makes: see docs/adr/0019-opentofu-provider.md for why it is written by hand, not generated.
package client

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// Router is a VR as the API writes and reads it: its vmConfigTable row, its interfaces and, read only,
// the vmTable state. Pointers are the columns a request may leave out (the server's default, or unchanged).
type Router struct {
	VmIndex              *int64      `json:"vmIndex,omitempty"`
	VmName               string      `json:"vmName,omitempty"`
	VmConfigDescription  *string     `json:"vmConfigDescription,omitempty"`
	VmConfigTemplate     string      `json:"vmConfigTemplate,omitempty"`
	VmConfigCpuNumber    *int64      `json:"vmConfigCpuNumber,omitempty"`
	VmConfigMemory       *int64      `json:"vmConfigMemory,omitempty"`
	VmConfigCpuWeight    *int64      `json:"vmConfigCpuWeight,omitempty"`
	VmAdminState         string      `json:"vmAdminState,omitempty"`
	VmConfigAutoStart    *bool       `json:"vmConfigAutoStart,omitempty"`
	VmConfigTenant       *string     `json:"vmConfigTenant,omitempty"`
	VmNetworkConfigTable []Interface `json:"vmNetworkConfigTable,omitempty"`
	VmEntry              *VmEntry    `json:"vmEntry,omitempty"`
}

// Interface is a vmNetworkConfigTable row.
type Interface struct {
	VmNetworkConfigIndex         *int64  `json:"vmNetworkConfigIndex,omitempty"`
	VmNetworkConfigParent        *string `json:"vmNetworkConfigParent,omitempty"`
	VmNetworkConfigPhysAddress   *string `json:"vmNetworkConfigPhysAddress,omitempty"`
	VmNetworkConfigAddress       *string `json:"vmNetworkConfigAddress,omitempty"`
	VmNetworkConfigPrefixLength  *int64  `json:"vmNetworkConfigPrefixLength,omitempty"`
	VmNetworkConfigLinkType      *string `json:"vmNetworkConfigLinkType,omitempty"`
	VmNetworkConfigPeerRouter    *int64  `json:"vmNetworkConfigPeerRouter,omitempty"`
	VmNetworkConfigPeerInterface *int64  `json:"vmNetworkConfigPeerInterface,omitempty"`
	VmNetworkConfigVni           *int64  `json:"vmNetworkConfigVni,omitempty"`
	VmNetworkConfigRemote        *string `json:"vmNetworkConfigRemote,omitempty"`
	VmNetworkConfigRateIn        *int64  `json:"vmNetworkConfigRateIn,omitempty"`
	VmNetworkConfigRateOut       *int64  `json:"vmNetworkConfigRateOut,omitempty"`
}

// VmEntry is the part of the vmTable row the provider shows.
type VmEntry struct {
	VmOperState       string `json:"vmOperState,omitempty"`
	VmOperStateReason string `json:"vmOperStateReason,omitempty"`
	VmUUID            string `json:"vmUUID,omitempty"`
}

// Session is GET /session: the caller and what the driver offers.
type Session struct {
	User        string   `json:"user"`
	Role        string   `json:"role"`
	Tenant      string   `json:"tenant"`
	Driver      string   `json:"driver"`
	AdminStates []string `json:"adminStates"`
	Templates   []string `json:"templates"`
}

// Tenant is one tenant of GET /tenants: its quotas (absent: no limit) and what its VRs commit.
type Tenant struct {
	Name  string        `json:"name"`
	Quota TenantAmounts `json:"quota"`
	Usage TenantAmounts `json:"usage"`
}

// TenantAmounts are VRs, vCPUs and memory (MiB), each absent when it is not limited.
type TenantAmounts struct {
	Vrs    *int64 `json:"vrs"`
	Vcpus  *int64 `json:"vcpus"`
	Memory *int64 `json:"memory"`
}

// Hypervisor is GET /hypervisor: the vmHypervisor group and the scalars.
type Hypervisor struct {
	VmHvSoftware                 string `json:"vmHvSoftware"`
	VmHvVersion                  string `json:"vmHvVersion"`
	VmHvUpTime                   int64  `json:"vmHvUpTime"`
	VmNumber                     int64  `json:"vmNumber"`
	VmConfigNextAvailableVmIndex int64  `json:"vmConfigNextAvailableVmIndex"`
	VmConfiguredVMs              int64  `json:"vmConfiguredVMs"`
	VmActiveVMs                  int64  `json:"vmActiveVMs"`
	VmHvCpus                     *int64 `json:"vmHvCpus"` // absent where the driver does not know the host's
	VmHvMemory                   *int64 `json:"vmHvMemory"`
	VmCommittedCpus              int64  `json:"vmCommittedCpus"`
	VmCommittedMemory            int64  `json:"vmCommittedMemory"`
}

// Problem is an RFC 9457 problem details answer; Field names the offending column where there is one.
type Problem struct {
	Status int    `json:"status"`
	Title  string `json:"title"`
	Detail string `json:"detail"`
	Field  string `json:"field"`
}

func (p *Problem) Error() string {
	msg := fmt.Sprintf("%d %s: %s", p.Status, p.Title, p.Detail)
	if p.Field != "" {
		msg += " (field " + p.Field + ")"
	}
	return msg
}

// IsStatus says whether err is a problem with that HTTP status.
func IsStatus(err error, status int) bool {
	var p *Problem
	return errors.As(err, &p) && p.Status == status
}

// Config is what the provider block says.
type Config struct {
	Endpoint string
	Username string
	Password string
	CAFile   string
	Insecure bool
	// Timeout bounds each wait for the host (sent as ?wait=) and each request.
	Timeout time.Duration
}

// Client talks to one vrouter server.
type Client struct {
	base    *url.URL
	user    string
	pass    string
	http    *http.Client
	Timeout time.Duration
}

// New checks the configuration and makes a client; it does not call the server.
func New(c Config) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(c.Endpoint, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("endpoint %q is not an http or https URL", c.Endpoint)
	}
	tlsConfig := &tls.Config{InsecureSkipVerify: c.Insecure} //nolint:gosec // asked for by the operator
	if c.CAFile != "" {
		pem, err := os.ReadFile(c.CAFile)
		if err != nil {
			return nil, fmt.Errorf("ca_file: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("ca_file %s holds no PEM certificate", c.CAFile)
		}
		tlsConfig.RootCAs = pool
	}
	if c.Timeout <= 0 {
		c.Timeout = time.Minute
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = tlsConfig
	return &Client{
		base: u, user: c.Username, pass: c.Password, Timeout: c.Timeout,
		// A request that waits for the host may take the whole wait: leave it some slack.
		http: &http.Client{Transport: transport, Timeout: c.Timeout + 30*time.Second},
	}, nil
}

// response is what a call answered beyond its body.
type response struct {
	status int
	etag   string
}

// do sends one request; a problem answer (any status >= 400) is returned as *Problem.
func (c *Client) do(ctx context.Context, method, path string, header http.Header, in, out any) (response, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return response{}, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base.String()+"/api/v1"+path, body)
	if err != nil {
		return response{}, err
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if in != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/json")
	req.SetBasicAuth(c.user, c.pass)
	resp, err := c.http.Do(req)
	if err != nil {
		return response{}, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return response{}, err
	}
	r := response{status: resp.StatusCode, etag: resp.Header.Get("ETag")}
	if resp.StatusCode >= 400 {
		p := &Problem{Status: resp.StatusCode, Title: http.StatusText(resp.StatusCode)}
		if json.Unmarshal(data, p) != nil || p.Detail == "" {
			p.Detail = strings.TrimSpace(string(data))
		}
		p.Status = resp.StatusCode
		return r, p
	}
	if out != nil && len(data) > 0 {
		if err := json.Unmarshal(data, out); err != nil {
			return r, fmt.Errorf("%s %s: cannot read the answer: %w", method, path, err)
		}
	}
	return r, nil
}

func (c *Client) wait() string {
	return strconv.FormatInt(c.Timeout.Milliseconds(), 10) + "ms"
}

// NewIdempotencyKey makes a key for one creation: every retry of it sends the same key.
func NewIdempotencyKey() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// CreateRouter posts a VR under an Idempotency-Key and waits for the host: sent again after a lost answer,
// the server answers as the first time instead of making a second VR. Returns the VR and its ETag;
// done is false when the wait ran out before the VR settled (202).
func (c *Client) CreateRouter(ctx context.Context, r Router, key string) (out Router, etag string, done bool, err error) {
	h := http.Header{"Idempotency-Key": {key}}
	var resp response
	for attempt := 1; ; attempt++ {
		resp, err = c.do(ctx, http.MethodPost, "/routers?wait="+c.wait(), h, r, &out)
		// Retry only what may not have reached the server or been answered: the key makes it safe.
		var p *Problem
		if err == nil || errors.As(err, &p) || attempt == 3 || ctx.Err() != nil {
			break
		}
	}
	return out, resp.etag, resp.status == http.StatusCreated, err
}

// GetRouter reads one VR and its ETag.
func (c *Client) GetRouter(ctx context.Context, index int64) (out Router, etag string, err error) {
	resp, err := c.do(ctx, http.MethodGet, "/routers/"+strconv.FormatInt(index, 10), nil, nil, &out)
	return out, resp.etag, err
}

// FindRouter finds a VR by its exact name; found is false when there is none.
func (c *Client) FindRouter(ctx context.Context, name string) (out Router, found bool, err error) {
	var list struct {
		VirtualRouter []Router `json:"virtualRouter"`
	}
	_, err = c.do(ctx, http.MethodGet, "/routers?name="+url.QueryEscape(name), nil, nil, &list)
	for _, r := range list.VirtualRouter {
		if r.VmName == name {
			return r, true, err
		}
	}
	return Router{}, false, err
}

// ListRouters lists the VRs matching the server's filters (name with *, operState, adminState; empty: any),
// following the pages.
func (c *Client) ListRouters(ctx context.Context, name, operState, adminState string) ([]Router, error) {
	var all []Router
	for offset := 0; ; {
		q := url.Values{"offset": {strconv.Itoa(offset)}}
		for k, v := range map[string]string{"name": name, "operState": operState, "adminState": adminState} {
			if v != "" {
				q.Set(k, v)
			}
		}
		var page struct {
			Total         int      `json:"total"`
			VirtualRouter []Router `json:"virtualRouter"`
		}
		if _, err := c.do(ctx, http.MethodGet, "/routers?"+q.Encode(), nil, nil, &page); err != nil {
			return nil, err
		}
		all = append(all, page.VirtualRouter...)
		offset += len(page.VirtualRouter)
		if len(page.VirtualRouter) == 0 || offset >= page.Total {
			return all, nil
		}
	}
}

// PatchRouter changes columns (a JSON merge patch) if the VR is still at etag, waiting for the host.
func (c *Client) PatchRouter(ctx context.Context, index int64, patch map[string]any, etag string) (out Router, newETag string, err error) {
	h := http.Header{"Content-Type": {"application/merge-patch+json"}}
	if etag != "" {
		h.Set("If-Match", etag)
	}
	resp, err := c.do(ctx, http.MethodPatch, "/routers/"+strconv.FormatInt(index, 10)+"?wait="+c.wait(), h, patch, &out)
	return out, resp.etag, err
}

// DeleteRouter removes a VR; gone is true once the host objects are gone (204, or 404: nothing there).
func (c *Client) DeleteRouter(ctx context.Context, index int64) (gone bool, err error) {
	resp, err := c.do(ctx, http.MethodDelete, "/routers/"+strconv.FormatInt(index, 10)+"?wait="+c.wait(), nil, nil, nil)
	if IsStatus(err, http.StatusNotFound) {
		return true, nil
	}
	return resp.status == http.StatusNoContent, err
}

// Session reads GET /session.
func (c *Client) Session(ctx context.Context) (out Session, err error) {
	_, err = c.do(ctx, http.MethodGet, "/session", nil, nil, &out)
	return out, err
}

// Tenants reads GET /tenants: the tenants the caller may see, with their quotas and usage.
func (c *Client) Tenants(ctx context.Context) (out []Tenant, err error) {
	var list struct {
		Tenant []Tenant `json:"tenant"`
	}
	_, err = c.do(ctx, http.MethodGet, "/tenants", nil, nil, &list)
	return list.Tenant, err
}

// Hypervisor reads GET /hypervisor.
func (c *Client) Hypervisor(ctx context.Context) (out Hypervisor, err error) {
	_, err = c.do(ctx, http.MethodGet, "/hypervisor", nil, nil, &out)
	return out, err
}
