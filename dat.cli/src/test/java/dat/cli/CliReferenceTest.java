// SPDX-License-Identifier: Apache-2.0
package dat.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The command reference in {@code docs/cli/} is generated from the picocli declarations, one page per command with
 * what its {@code --help} prints, so no option list is restated by hand. This test fails when a committed page
 * differs from what the sources generate, or a page is left over from a command that is gone; run
 * {@code tools/gen-cli-reference.sh} (this test with {@value #WRITE_PROPERTY}{@code =true}) to rewrite them.
 */
class CliReferenceTest {

    /** Columns of the usage text in a page. */
    private static final int PAGE_WIDTH = 120;

    /** System property that makes the test write the pages instead of comparing them. */
    static final String WRITE_PROPERTY = "dat.cli.reference.write";

    /** {@return the repository root: the nearest directory up from the module holding {@code mvnw}} */
    private static Path root() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("mvnw"))) {
            dir = dir.getParent();
        }
        assertTrue(dir != null, "no mvnw above " + Path.of("").toAbsolutePath());
        return dir;
    }

    /** {@return each page's file name and text, for every command but picocli's {@code help}} */
    static Map<String, String> pages() {
        Map<String, String> pages = new TreeMap<>();
        // Wider than picocli's default 80 columns, so the multi-line descriptions keep their own line breaks.
        add(pages, DatCommand.commandLine().setUsageHelpWidth(PAGE_WIDTH));
        return pages;
    }

    private static void add(Map<String, String> pages, CommandLine line) {
        CommandLine.Model.CommandSpec spec = line.getCommandSpec();
        String name = spec.qualifiedName(" ");
        StringBuilder page = new StringBuilder();
        page.append("<!-- Generated from dat.cli's picocli declarations by tools/gen-cli-reference.sh;")
                .append(" do not edit. -->\n");
        page.append("# `").append(name).append("`\n\n");
        page.append("```\n").append(line.getUsageMessage(CommandLine.Help.Ansi.OFF).stripTrailing()).append("\n```\n");
        List<String> children = new ArrayList<>();
        line.getSubcommands().forEach((sub, child) -> {
            if (!(child.getCommand() instanceof CommandLine.HelpCommand)
                    && child.getCommandSpec().name().equals(sub)) {
                children.add("- [`" + child.getCommandSpec().qualifiedName(" ") + "`](" + file(child) + ")");
                add(pages, child);
            }
        });
        if (!children.isEmpty()) {
            page.append("\nSubcommands:\n\n").append(String.join("\n", children)).append('\n');
        }
        pages.put(file(line), page.toString());
    }

    private static String file(CommandLine line) {
        return line.getCommandSpec().qualifiedName("-") + ".md";
    }

    @Test
    void theCommittedReferenceIsWhatTheSourcesGenerate() throws IOException {
        Path dir = root().resolve("docs/cli");
        Map<String, String> pages = pages();
        if (Boolean.getBoolean(WRITE_PROPERTY)) {
            Files.createDirectories(dir);
            try (Stream<Path> old = Files.list(dir)) {
                for (Path file : old.toList()) {
                    Files.delete(file);
                }
            }
            for (Map.Entry<String, String> page : pages.entrySet()) {
                Files.writeString(dir.resolve(page.getKey()), page.getValue(), StandardCharsets.UTF_8);
            }
            return;
        }
        Map<String, String> committed = new TreeMap<>();
        if (Files.isDirectory(dir)) {
            try (Stream<Path> files = Files.list(dir)) {
                for (Path file : files.toList()) {
                    committed.put(file.getFileName().toString(), Files.readString(file, StandardCharsets.UTF_8));
                }
            }
        }
        assertEquals(pages.keySet(), committed.keySet(), "docs/cli/ is stale: run tools/gen-cli-reference.sh");
        pages.forEach((file, text) -> assertEquals(text, committed.get(file),
                "docs/cli/" + file + " is stale: run tools/gen-cli-reference.sh"));
    }
}
