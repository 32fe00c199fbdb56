// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dat.registry.DatRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code dat info} and {@code dat tck} as a user runs them, against the loopback provider. */
class DatCommandTest {

    /** What one run printed and returned. */
    record Run(int exit, String out, String err) {
        String both() {
            return out + err;
        }
    }

    static Run dat(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = DatCommand.execute(new PrintWriter(out, true), new PrintWriter(err, true), args);
        return new Run(exit, out.toString(), err.toString());
    }

    /** Each name of {@link DatCommand#SUBCOMMANDS} is the one its class's {@code @Command} gives it. */
    @Test
    void subcommandNamesAreTheirCommandNames() {
        DatCommand.SUBCOMMANDS.forEach((name, type) -> assertEquals(name,
                type.getAnnotation(CommandLine.Command.class).name(), type.getName()));
        assertEquals(List.copyOf(DatCommand.SUBCOMMANDS.keySet()),
                List.copyOf(DatCommand.commandLine().getSubcommands().keySet()));
    }

    /**
     * A command line that starts with a command's name gets a tree of that command alone (picocli's start is
     * reflection over every command it is given), and parses as the whole tree would: the help it prints is the same.
     */
    @Test
    void aNamedCommandBuildsOnlyItselfAndParsesTheSame() {
        assertEquals(List.of("info"), List.copyOf(DatCommand.commandLine("info", "-v").getSubcommands().keySet()));
        assertEquals(DatCommand.SUBCOMMANDS.keySet(), DatCommand.commandLine("help", "info").getSubcommands()
                .keySet());
        assertEquals(DatCommand.SUBCOMMANDS.keySet(), DatCommand.commandLine("--provider-path", "x", "info")
                .getSubcommands().keySet());
        for (String name : DatCommand.SUBCOMMANDS.keySet()) {
            if (name.equals("help")) {
                continue;
            }
            StringWriter out = new StringWriter();
            StringWriter err = new StringWriter();
            CommandLine tree = DatCommand.commandLine();
            tree.setOut(new PrintWriter(out, true)).setErr(new PrintWriter(err, true));
            Run whole = new Run(tree.execute(name, "--help"), out.toString(), err.toString());
            assertEquals(whole, dat(name, "--help"), name);
        }
    }

    @Test
    void infoListsLoopbackAsAvailable() {
        Run r = dat("info");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("loopback0") && l.contains("loopback")
                && l.endsWith("available")), r.out());
        assertTrue(r.out().startsWith("IA"), "a header first: " + r.out());
    }

    @Test
    void infoListPrintsNamesOnly() {
        Run r = dat("info", "-l");
        assertEquals(0, r.exit(), r.err());
        assertEquals("loopback0", r.out().strip());
    }

    @Test
    void infoVerbosePrintsEveryAttributeUnderItsDatName() {
        Run r = dat("info", "-v");
        assertEquals(0, r.exit(), r.err());
        for (String line : new String[] {"srq_supported = true", "optimal_buffer_alignment = 64",
            "ep_recv_info_supported = 0x11", "max_iov_segments_per_dto = ", "ia_address_ptr = 127.0.1.",
            "completion_flags_supported = 0x1f"}) {
            assertTrue(r.out().contains(line), "missing '" + line + "' in\n" + r.out());
        }
    }

    @Test
    void infoEnvPrintsSettingsWithDefaults() {
        Run r = dat("info", "-e");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("dat.loopback.ias = loopback0 (default loopback0)"), r.out());
        assertTrue(r.out().contains("dat.providers"), r.out());
    }

    @Test
    void infoJsonHasProvidersAndIasWithAttributes() {
        Run r = dat("info", "--json");
        assertEquals(0, r.exit(), r.err());
        String json = r.out().strip();
        assertTrue(json.startsWith("{") && json.endsWith("}"), json);
        assertTrue(json.contains("\"providers\": ["), json);
        assertTrue(json.contains("\"name\": \"loopback0\""), json);
        assertTrue(json.contains("\"srq_supported\": true"), json);
        assertTrue(json.contains("\"optimal_buffer_alignment\": 64"), json);
    }

    @Test
    void infoWhereExplainsRejectionsAndSaysNoWhenNothingMatches() {
        Run matched = dat("info", "--where", "srq_supported && (ep_recv_info_supported & 0x10) != 0");
        assertEquals(0, matched.exit(), matched.err());
        assertTrue(matched.out().contains("loopback0"), matched.out());
        Run rejected = dat("info", "--where", "optimal_buffer_alignment <= 32");
        assertEquals(Exit.NO, rejected.exit());
        assertTrue(rejected.out().contains("loopback0: optimal_buffer_alignment <= 32 failed: actual 64"),
                rejected.out());
        assertTrue(rejected.out().startsWith("no IA matches 'optimal_buffer_alignment <= 32'"), rejected.out());
    }

    @Test
    void infoWhereWithABadQueryPointsAtIt() {
        Run r = dat("info", "--where", "srq_suported");
        assertEquals(Exit.USAGE, r.exit());
        assertTrue(r.err().contains("srq_supported"), "suggests the right name: " + r.err());
        assertTrue(r.err().contains("^"), "points at the column: " + r.err());
    }

    @Test
    void tckListRulesPrintsTheIndex() {
        Run r = dat("tck", "--list-rules");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("required_srq_resize_invalidStateCountsCompletedUnreapedBuffers"), r.out());
        assertTrue(r.out().lines().count() > 100, "one line per rule");
    }

    @Test
    void tckAgainstLoopbackPassesAndWritesReports(@TempDir Path dir) throws IOException {
        Path reports = dir.resolve("reports");
        Run r = dat("tck", "--provider", "loopback", "--strict", "--reports", reports.toString());
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("dat_srq_resize"), "a row per DAT call: " + r.out());
        assertTrue(r.out().lines().anyMatch(l -> l.startsWith("total") && l.contains(" 0 ")), r.out());
        try (Stream<Path> files = Files.list(reports)) {
            assertTrue(files.anyMatch(p -> p.toString().endsWith(".xml")), "JUnit XML written");
        }
    }

    @Test
    void tckOnlyRunsTheMatchingRules(@TempDir Path dir) {
        Run r = dat("tck", "--provider", "loopback", "--only", "*srq_resize*,required_ia_query_*", "--verbose",
                "--reports", dir.toString());
        assertTrue(r.out().contains("  start required_srq_resize_"), "--verbose logs each start: " + r.out());
        assertTrue(r.out().contains("  successful required_srq_resize_"), "and each end: " + r.out());
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("dat_srq_resize"), r.out());
        assertTrue(r.out().contains("dat_ia_query"), r.out());
        assertTrue(r.out().lines().noneMatch(l -> l.startsWith("dat_ep_post_send ")), "no other call ran: " + r.out());
    }

    @Test
    void providerPathIsAGlobalOptionThatEveryCommandSeesAndThatEndsWithTheRun(@TempDir Path dir) {
        Path missing = dir.resolve("vendor.jar");
        for (String[] args : new String[][] {{"--provider-path", missing.toString(), "info"},
            {"info", "--provider-path", missing.toString()}}) {
            Run r = dat(args);
            assertEquals(0, r.exit(), r.err());
            assertTrue(r.out().lines().anyMatch(l -> l.startsWith("-") && l.contains("vendor.jar")
                    && l.contains("unavailable: " + missing + ": no such file or directory")),
                    String.join(" ", args) + "\n" + r.out());
            assertNull(System.getProperty(DatRegistry.PROVIDER_PATH_PROPERTY), "the property outlived the run");
        }
        assertEquals(Exit.USAGE, dat("--provider-path", " ", "info").exit());
    }

    @Test
    void aTckRunLogsEachRegistryProblemOncePerJvmNotOncePerRule(@TempDir Path dir) {
        // A name no other test uses: the registry remembers what it logged for the whole JVM.
        Path missing = dir.resolve("missing-" + UUID.randomUUID() + ".jar");
        List<LogRecord> records = new CopyOnWriteArrayList<>();
        Handler handler = new Handler() {
            @Override
            public void publish(LogRecord entry) {
                records.add(entry);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger registryLog = Logger.getLogger(DatRegistry.LOGGER_NAME);
        registryLog.addHandler(handler);
        try {
            Run r = dat("--provider-path", missing.toString(), "tck", "--provider", "loopback", "--only",
                    "required_ia_query_*", "--reports", dir.resolve("reports").toString());
            assertEquals(0, r.exit(), r.out() + r.err());
        } finally {
            registryLog.removeHandler(handler);
        }
        List<LogRecord> warnings = records.stream().filter(e -> e.getLevel() == Level.WARNING
                && e.getMessage().contains(missing.getFileName().toString())).toList();
        assertEquals(1, warnings.size(), () -> warnings.stream().map(LogRecord::getMessage).toList().toString());
    }

    /**
     * Issue 24 R1: a {@code dat.conf} with a Latin-1 byte lost every entry, and {@code dat info} did not say why. The
     * bad line is skipped, the others load, and {@code dat info} names the file and line (and so does {@code --json}).
     */
    @Test
    void infoNamesTheDatConfLineItSkippedAndListsTheRest(@TempDir Path dir) throws IOException {
        Path conf = dir.resolve("dat.conf");
        byte[] good = "lo-a u1.2 threadsafe default loopback dapl.1.2 \"\" \"\"\n".getBytes(StandardCharsets.UTF_8);
        byte[] bad = "lo-b u1.2 threadsafe default loopback dapl.1.2 \"caf\u00e9\" \"\"\n"
                .getBytes(StandardCharsets.ISO_8859_1);
        try (OutputStream o = Files.newOutputStream(conf)) {
            o.write(good);
            o.write(bad);
        }
        String before = System.getProperty(DatRegistry.DAT_CONF_PROPERTY);
        System.setProperty(DatRegistry.DAT_CONF_PROPERTY, conf.toString());
        try {
            Run r = dat("info");
            assertEquals(0, r.exit(), r.err());
            assertTrue(r.out().lines().anyMatch(l -> l.startsWith("lo-a ") && l.endsWith("available")), r.out());
            assertTrue(r.out().lines().noneMatch(l -> l.startsWith("lo-b ")), r.out());
            assertTrue(r.out().contains(conf + ":2:"), "dat info names the file and line it skipped: " + r.out());
            Run json = dat("info", "--json");
            assertTrue(json.out().contains("\"line\": 2") || json.out().contains("\"line\":2"), json.out());
        } finally {
            if (before == null) {
                System.clearProperty(DatRegistry.DAT_CONF_PROPERTY);
            } else {
                System.setProperty(DatRegistry.DAT_CONF_PROPERTY, before);
            }
        }
    }

    @Test
    void tckOnAnUnknownProviderIsAUsageError() {
        Run r = dat("tck", "--provider", "nosuch", "--reports", "target/unused");
        assertEquals(Exit.USAGE, r.exit());
        assertTrue(r.err().contains("no provider named nosuch"), r.err());
        assertTrue(r.err().contains("loopback"), "lists what exists: " + r.err());
    }

    @Test
    void everyCommandHasHelpAndTheVersionNamesJdat() {
        for (String[] args : new String[][] {{"--help"}, {"info", "--help"}, {"tck", "--help"}, {"help", "tck"}}) {
            Run r = dat(args);
            assertEquals(0, r.exit(), String.join(" ", args) + ": " + r.err());
            assertTrue(r.out().contains("Usage: dat"), r.out());
        }
        Run v = dat("--version");
        assertEquals(0, v.exit());
        assertTrue(v.out().contains("jDAT"), v.out());
        assertEquals(Exit.USAGE, dat("info", "--no-such-option").exit());
    }

    @Test
    void helpListsTheExitCodesOfEveryCommand() {
        for (String[] args : new String[][] {{"--help"}, {"perf", "--help"}, {"perf", "serve", "--help"},
            {"tck-fault", "victim", "--help"}, {"tck-peer", "--help"}}) {
            Run r = dat(args);
            assertEquals(Exit.OK, r.exit(), String.join(" ", args) + ": " + r.err());
            assertTrue(r.out().contains("Exit codes:") && r.out().contains(Exit.USAGE + "   bad usage"), r.out());
        }
    }

    @Test
    void rolesAreSubcommandsWithTheirOwnRequiredOptions() {
        Run none = dat("tck-fault");
        assertEquals(Exit.USAGE, none.exit(), none.both());
        assertTrue(none.err().contains("Missing required subcommand"), none.both());
        Run victim = dat("tck-fault", "victim", "--conn-qual", "7");
        assertEquals(Exit.USAGE, victim.exit(), victim.both());
        assertTrue(victim.err().contains("Missing required options: '--fault=FAULT', '--marker=FILE'"),
                victim.both());
        Run survivor = dat("tck-fault", "survivor");
        assertEquals(Exit.USAGE, survivor.exit(), survivor.both());
        assertTrue(survivor.err().contains("Missing required option: '--peer=HOST:CONN_QUAL'"), survivor.both());
        Run role = dat("tck-fault", "bystander");
        assertEquals(Exit.USAGE, role.exit(), role.both());
        Run before = dat("perf", "--ia", "loopback0", "serve", "--conn-qual", "7");
        assertEquals(Exit.USAGE, before.exit(), before.both());
        assertTrue(before.err().contains("give the options of dat perf serve after serve"), before.both());
    }
}
