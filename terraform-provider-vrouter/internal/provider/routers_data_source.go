package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/vrouter/terraform-provider-vrouter/internal/client"
)

// vrouter_routers: GET /routers with the server's filters, the VRs whoever made them (another
// configuration, SNMP, the console), e.g. to name a peer or to check a name is free.
type routersDataSource struct{ client *client.Client }

type routersModel struct {
	Name       types.String    `tfsdk:"name"`
	OperState  types.String    `tfsdk:"oper_state"`
	AdminState types.String    `tfsdk:"admin_state"`
	Routers    []routerSummary `tfsdk:"routers"`
}

type routerSummary struct {
	VmIndex    types.Int64  `tfsdk:"vm_index"`
	Name       types.String `tfsdk:"name"`
	Template   types.String `tfsdk:"template"`
	AdminState types.String `tfsdk:"admin_state"`
	OperState  types.String `tfsdk:"oper_state"`
	Tenant     types.String `tfsdk:"tenant"`
	UUID       types.String `tfsdk:"uuid"`
}

func newRoutersDataSource() datasource.DataSource { return &routersDataSource{} }

func (d *routersDataSource) Metadata(_ context.Context, req datasource.MetadataRequest, resp *datasource.MetadataResponse) {
	resp.TypeName = req.ProviderTypeName + "_routers"
}

func (d *routersDataSource) Schema(_ context.Context, _ datasource.SchemaRequest, resp *datasource.SchemaResponse) {
	resp.Schema = schema.Schema{
		Description: "The VRs the caller sees (GET /api/v1/routers), filtered as the server filters them.",
		Attributes: map[string]schema.Attribute{
			"name":        schema.StringAttribute{Optional: true, Description: "vmName, with * for any characters (edge*)"},
			"oper_state":  schema.StringAttribute{Optional: true, Description: "vmOperState, e.g. running"},
			"admin_state": schema.StringAttribute{Optional: true, Description: "vmAdminState, e.g. shutdown"},
			"routers": schema.ListNestedAttribute{Computed: true, Description: "the VRs, by vmIndex",
				NestedObject: schema.NestedAttributeObject{Attributes: map[string]schema.Attribute{
					"vm_index":    schema.Int64Attribute{Computed: true},
					"name":        schema.StringAttribute{Computed: true},
					"template":    schema.StringAttribute{Computed: true},
					"admin_state": schema.StringAttribute{Computed: true},
					"oper_state":  schema.StringAttribute{Computed: true},
					"tenant":      schema.StringAttribute{Computed: true},
					"uuid":        schema.StringAttribute{Computed: true},
				}}},
		},
	}
}

func (d *routersDataSource) Configure(_ context.Context, req datasource.ConfigureRequest, resp *datasource.ConfigureResponse) {
	d.client = configured(req.ProviderData, &resp.Diagnostics)
}

func (d *routersDataSource) Read(ctx context.Context, req datasource.ReadRequest, resp *datasource.ReadResponse) {
	var m routersModel
	resp.Diagnostics.Append(req.Config.Get(ctx, &m)...)
	if resp.Diagnostics.HasError() {
		return
	}
	list, err := d.client.ListRouters(ctx, m.Name.ValueString(), m.OperState.ValueString(), m.AdminState.ValueString())
	if err != nil {
		addProblem(&resp.Diagnostics, "Cannot list the VRs", err)
		return
	}
	m.Routers = []routerSummary{}
	for _, r := range list {
		vr := modelFromRouter(r)
		m.Routers = append(m.Routers, routerSummary{VmIndex: vr.VmIndex, Name: vr.Name, Template: vr.Template,
			AdminState: vr.AdminState, OperState: vr.OperState, Tenant: vr.Tenant, UUID: vr.UUID})
	}
	resp.Diagnostics.Append(resp.State.Set(ctx, m)...)
}
