// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import dat.api.DatFields;
import dat.registry.DatQuery;
import dat.registry.DatRegistry;
import dat.registry.IaEntry;
import dat.registry.ProviderEntry;
import dat.registry.Selection;
import dat.spi.DatSetting;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code dat info}, in the manner of {@code fi_info}: the providers and IAs this installation finds, available or
 * not and why, with their DAT attributes on request.
 */
@Command(name = "info", mixinStandardHelpOptions = true,
        description = {"List DAT providers and IAs (available or not, and why).",
            "Attributes are shown under their DAT field names."})
final class InfoCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = {"-l", "--list"}, description = "Print IA names only, one per line.")
    boolean namesOnly;

    @Option(names = {"-v", "--verbose"}, description = "Print every provider and IA attribute.")
    boolean verbose;

    @Option(names = {"-e", "--env"}, description = "Print each provider's settings with their defaults.")
    boolean settings;

    @Option(names = "--json", description = "Print JSON for machines.")
    boolean json;

    @Option(names = "--where", paramLabel = "QUERY",
            description = {"Select IAs by attributes, e.g. 'srq_supported && optimal_buffer_alignment <= 256';",
                "each rejected IA says which attribute failed."})
    String where;

    /** Created by picocli. */
    InfoCommand() {
    }

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        DatRegistry registry = DatRegistry.load();
        Selection selection = where == null ? null : registry.select(DatQuery.parse(where));
        List<IaEntry> shown = selection == null ? registry.ias() : selection.matches();
        if (json) {
            out.println(Json.write(jsonView(registry, selection, shown)));
        } else if (namesOnly) {
            shown.forEach(ia -> out.println(Text.safe(ia.name())));
        } else {
            if (selection != null && shown.isEmpty()) {
                out.println("no IA matches '" + Text.safe(selection.query()) + "'");
            } else {
                printTable(out, registry, shown);
            }
            if (verbose) {
                shown.stream().filter(IaEntry::available).forEach(ia -> printAttributes(out, ia));
            }
            if (settings) {
                printSettings(out, registry);
            }
            if (selection != null) {
                printRejections(out, selection);
            }
            printDiagnostics(out, registry);
        }
        out.flush();
        return selection != null && selection.matches().isEmpty() ? Exit.NO : Exit.OK;
    }

    private static void printTable(PrintWriter out, DatRegistry registry, List<IaEntry> shown) {
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"IA", "PROVIDER", "VERSION", "STATUS"});
        for (IaEntry ia : shown) {
            String version = registry.providers().stream().filter(p -> p.name().equals(ia.providerName()))
                    .findFirst().map(p -> p.info() == null ? "-" : p.info().version()).orElse("-");
            rows.add(new String[] {ia.name(), ia.providerName(), version,
                ia.available() ? "available" : "unavailable: " + ia.unavailableReason()});
            escape(rows.getLast());
        }
        for (ProviderEntry p : registry.providers()) {
            boolean hasIa = shown.stream().anyMatch(ia -> ia.providerName().equals(p.name()));
            if (!p.available() && !hasIa) {
                rows.add(new String[] {"-", p.name(), p.info() == null ? "-" : p.info().version(),
                    "unavailable: " + p.unavailableReason()});
                escape(rows.getLast());
            }
        }
        int[] width = new int[3];
        for (String[] r : rows) {
            for (int i = 0; i < width.length; i++) {
                width[i] = Math.max(width[i], r[i].length());
            }
        }
        for (String[] r : rows) {
            out.printf("%-" + width[0] + "s  %-" + width[1] + "s  %-" + width[2] + "s  %s%n", r[0], r[1], r[2], r[3]);
        }
    }

    /**
     * What the static registry file did not load, by file and line ({@code DatRegistry.diagnostics()}): an entry
     * missing from the table above says why here, in the form editors jump to.
     */
    private static void printDiagnostics(PrintWriter out, DatRegistry registry) {
        if (registry.diagnostics().isEmpty()) {
            return;
        }
        out.println();
        out.println("dat.conf:");
        registry.diagnostics().forEach(d -> out.println("  " + Text.safe(d.toString())));
    }

    /** Every cell of a row comes from a provider, a file or a path: none may add a row or move the cursor. */
    private static void escape(String[] row) {
        for (int i = 0; i < row.length; i++) {
            row[i] = Text.safe(row[i]);
        }
    }

    private static Map<String, Object> attributes(IaEntry ia) {
        Map<String, Object> all = new LinkedHashMap<>(DatFields.of(ia.info().providerAttr()));
        all.putAll(DatFields.of(ia.info().iaAttr()));
        return all;
    }

    private static void printAttributes(PrintWriter out, IaEntry ia) {
        out.println();
        out.println(Text.safe(ia.name()) + " (provider " + Text.safe(ia.providerName()) + "):");
        out.println("  provider attributes (DAT_PROVIDER_ATTR):");
        DatFields.of(ia.info().providerAttr()).forEach((k, v) -> out.println("    " + k + " = " + text(k, v)));
        out.println("  IA attributes (DAT_IA_ATTR):");
        DatFields.of(ia.info().iaAttr()).forEach((k, v) -> out.println("    " + k + " = " + text(k, v)));
    }

    /** Bit-set attributes read best in hex, as DAT documents their bits. */
    private static String text(String name, Object value) {
        boolean bits = name.endsWith("_flags_supported") || name.equals("srq_info_supported")
                || name.equals("ep_recv_info_supported") || name.equals("srq_watermarks_supported")
                || name.equals("evd_stream_merging_supported") || name.equals("dat_qos_supported");
        if (bits && value instanceof Number n) {
            return "0x" + Long.toHexString(n.longValue());
        }
        return Text.safe(value instanceof InetAddress a ? a.getHostAddress() : String.valueOf(value));
    }

    private static void printSettings(PrintWriter out, DatRegistry registry) {
        out.println();
        out.println("registry settings:");
        printSettingList(out, registry.settings());
        for (ProviderEntry p : registry.providers()) {
            if (p.info() != null) {
                out.println(Text.safe(p.name()) + " settings:");
                printSettingList(out, p.info().settings());
            }
        }
    }

    private static void printSettingList(PrintWriter out, List<DatSetting> list) {
        if (list.isEmpty()) {
            out.println("  (none)");
        }
        for (DatSetting s : list) {
            out.printf("  %s = %s (default %s): %s%n", Text.safe(s.property()), s.currentValue().isEmpty() ? "\"\""
                    : Text.safe(s.currentValue()),
                    s.defaultValue().isEmpty() ? "\"\"" : Text.safe(s.defaultValue()), Text.safe(s.description()));
        }
    }

    private static void printRejections(PrintWriter out, Selection selection) {
        if (selection.rejections().isEmpty()) {
            return;
        }
        out.println();
        out.println("rejected by '" + Text.safe(selection.query()) + "':");
        selection.rejections().forEach((ia, reasons) -> reasons.forEach(r -> out.println("  " + Text.safe(ia.name())
                + ": " + Text.safe(r))));
    }

    private static Map<String, Object> jsonView(DatRegistry registry, Selection selection, List<IaEntry> shown) {
        Map<String, Object> root = new LinkedHashMap<>();
        List<Object> providers = new ArrayList<>();
        for (ProviderEntry p : registry.providers()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", p.name());
            m.put("version", p.info() == null ? null : p.info().version());
            m.put("class", p.className());
            m.put("source", p.source());
            m.put("available", p.available());
            m.put("reason", p.unavailableReason());
            List<Object> settings = new ArrayList<>();
            if (p.info() != null) {
                for (DatSetting s : p.info().settings()) {
                    settings.add(Map.of("property", s.property(), "default", s.defaultValue(), "value",
                            s.currentValue(), "description", s.description()));
                }
            }
            m.put("settings", settings);
            providers.add(m);
        }
        root.put("providers", providers);
        List<Object> ias = new ArrayList<>();
        for (IaEntry ia : shown) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("name", ia.name());
            m.put("provider", ia.providerName());
            m.put("source", ia.source());
            m.put("ia_params", ia.iaParams());
            m.put("available", ia.available());
            m.put("reason", ia.unavailableReason());
            m.put("attributes", ia.available() ? attributes(ia) : Map.of());
            ias.add(m);
        }
        root.put("ias", ias);
        List<Object> diagnostics = new ArrayList<>();
        registry.diagnostics().forEach(d -> diagnostics.add(Map.of("file", d.fileName(), "line", d.line(),
                "message", d.message())));
        root.put("diagnostics", diagnostics);
        if (selection != null) {
            root.put("query", selection.query().toString());
            Map<String, Object> rejected = new LinkedHashMap<>();
            selection.rejections().forEach((ia, reasons) -> rejected.put(ia.name(), reasons));
            root.put("rejections", rejected);
        }
        return root;
    }
}
