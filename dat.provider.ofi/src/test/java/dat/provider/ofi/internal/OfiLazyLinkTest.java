// SPDX-License-Identifier: Apache-2.0
package dat.provider.ofi.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Discovery links only the downcall stubs it calls: each stub is classes the JVM spins at run time, outside the
 * runtime image's AOT cache, so every data-path stub linked at class initialisation cost every {@code dat info} its
 * time. In a child JVM, since this one's other tests link them all.
 */
class OfiLazyLinkTest {

    /** fi_passive_ep (four pointers), fi_getopt, fi_close: what the scan calls to read a fabric's cm_data_size. */
    private static final Set<String> DISCOVERY = Set.of("IntPppp", "IntPiipp", "IntP");

    @Test
    void discoveryLinksNoDataPathStub() throws Exception {
        Process child = ChildJvm.start(OfiDiscoveryProbe.class);
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(60, TimeUnit.SECONDS), output);
        assertEquals(0, child.exitValue(), output);
        List<String> lines = output.lines().toList();
        assertTrue(lines.size() == 2 && lines.get(0).startsWith("ias=") && lines.get(1).startsWith("linked="), output);
        assertTrue(Integer.parseInt(lines.get(0).substring(4)) > 0, "libfabric's tcp on lo is an IA: " + output);
        Set<String> linked = new TreeSet<>(Arrays.asList(lines.get(1).substring(7).split(",", -1)));
        // The scan made a passive endpoint, so the holders count: an empty set would prove nothing.
        assertTrue(linked.contains("IntPppp"), output);
        assertTrue(DISCOVERY.containsAll(linked), "discovery linked " + linked + ", only " + DISCOVERY + " expected");
    }
}
