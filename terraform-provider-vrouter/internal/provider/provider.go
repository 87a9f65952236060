// Package provider is the vrouter provider on terraform-plugin-framework: its settings, the vrouter_router
// resource and the vrouter_hypervisor and vrouter_templates data sources.
package provider

import (
	"context"
	"os"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/provider"
	"github.com/hashicorp/terraform-plugin-framework/provider/schema"
	"github.com/hashicorp/terraform-plugin-framework/resource"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/vrouter/terraform-provider-vrouter/internal/client"
)

// Address is the provider's registry address, as configurations' required_providers name it.
const Address = "registry.opentofu.org/vrouter/vrouter"

type vrouterProvider struct {
	version string
}

type providerModel struct {
	Endpoint types.String `tfsdk:"endpoint"`
	Username types.String `tfsdk:"username"`
	Password types.String `tfsdk:"password"`
	CAFile   types.String `tfsdk:"ca_file"`
	Insecure types.Bool   `tfsdk:"insecure"`
	Timeout  types.String `tfsdk:"timeout"`
}

// New makes the provider; version is the release it reports.
func New(version string) func() provider.Provider {
	return func() provider.Provider { return &vrouterProvider{version: version} }
}

func (p *vrouterProvider) Metadata(_ context.Context, _ provider.MetadataRequest, resp *provider.MetadataResponse) {
	resp.TypeName = "vrouter"
	resp.Version = p.version
}

func (p *vrouterProvider) Schema(_ context.Context, _ provider.SchemaRequest, resp *provider.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "Virtual routers on a vrouter server, over its REST API. Several servers are several provider blocks (alias).",
		Attributes: map[string]schema.Attribute{
			"endpoint": schema.StringAttribute{Optional: true,
				Description: "The server's base URL, e.g. http://127.0.0.1:8080. Default: $VROUTER_ENDPOINT."},
			"username": schema.StringAttribute{Optional: true,
				Description: "An operator's user name. Default: $VROUTER_USERNAME."},
			"password": schema.StringAttribute{Optional: true, Sensitive: true,
				Description: "Its password. Default: $VROUTER_PASSWORD."},
			"ca_file": schema.StringAttribute{Optional: true,
				Description: "A PEM file of the CA (or the very certificate, pinned) that the server's TLS certificate must chain to."},
			"insecure": schema.BoolAttribute{Optional: true,
				Description: "Accept any TLS certificate (tests only)."},
			"timeout": schema.StringAttribute{Optional: true,
				Description: "How long to wait for the host on each change (a Go duration: 90s, 2m). Default 60s."},
		},
	}
}

func (p *vrouterProvider) Configure(ctx context.Context, req provider.ConfigureRequest, resp *provider.ConfigureResponse) {
	var m providerModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	cfg := client.Config{
		Endpoint: orEnv(m.Endpoint, "VROUTER_ENDPOINT"),
		Username: orEnv(m.Username, "VROUTER_USERNAME"),
		Password: orEnv(m.Password, "VROUTER_PASSWORD"),
		CAFile:   m.CAFile.ValueString(),
		Insecure: m.Insecure.ValueBool(),
	}
	if cfg.Endpoint == "" {
		resp.Diagnostics.AddAttributeError(path.Root("endpoint"), "No vrouter endpoint",
			"Set endpoint in the provider block or VROUTER_ENDPOINT in the environment.")
		return
	}
	if !m.Timeout.IsNull() && !m.Timeout.IsUnknown() {
		d, err := time.ParseDuration(m.Timeout.ValueString())
		if err != nil || d <= 0 {
			resp.Diagnostics.AddAttributeError(path.Root("timeout"), "Bad timeout",
				"timeout is a positive duration such as 90s or 2m, not "+m.Timeout.String())
			return
		}
		cfg.Timeout = d
	}
	c, err := client.New(cfg)
	if err != nil {
		resp.Diagnostics.AddError("Cannot configure the vrouter provider", err.Error())
		return
	}
	resp.ResourceData = c
	resp.DataSourceData = c
}

func orEnv(v types.String, env string) string {
	if !v.IsNull() && !v.IsUnknown() {
		return v.ValueString()
	}
	return os.Getenv(env)
}

func (p *vrouterProvider) Resources(context.Context) []func() resource.Resource {
	return []func() resource.Resource{newRouterResource}
}

func (p *vrouterProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{newHypervisorDataSource, newTemplatesDataSource, newRoutersDataSource,
		newTenantsDataSource}
}
