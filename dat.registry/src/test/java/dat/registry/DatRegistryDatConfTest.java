// SPDX-License-Identifier: Apache-2.0
package dat.registry;

import static dat.registry.Fixtures.ia;
import static dat.registry.Fixtures.provider;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import dat.api.DatException;
import dat.api.DatIa;
import dat.api.DatReturn;
import dat.spi.DatProvider;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The static registry file as the registry uses it: IAs from entries, and every problem reported once. */
class DatRegistryDatConfTest {

    private final RecordingLogger log = new RecordingLogger();

    @TempDir
    Path dir;

    private Path write(String content) throws IOException {
        return Files.writeString(dir.resolve("dat.conf"), content);
    }

    private static IaEntry iaEntry(DatRegistry registry, String name) {
        return registry.ias().stream().filter(i -> i.name().equals(name)).findFirst().orElseThrow(
                () -> new AssertionError(name + " not in " + registry.ias()));
    }

    @Test
    void entriesBecomeIasAfterTheProvidersOwn() throws IOException {
        DatProvider loopback = provider("loopback", "loopback0");
        when(loopback.describe("lo-big", "size=1g")).thenReturn(ia("whatever", "loopback"));
        DatIa opened = mock(DatIa.class);
        when(loopback.open("lo-big", "size=1g", 3)).thenReturn(opened);
        Path conf = write("""
                # static entries
                lo-big u1.2 threadsafe default loopback dapl.1.2 "size=1g" ""
                """);
        DatRegistry registry = DatRegistry.builder().logger(log).providers(List.of(loopback)).datConf(conf).build();
        assertEquals(List.of("loopback0", "lo-big"), registry.ias().stream().map(IaEntry::name).toList());
        IaEntry big = iaEntry(registry, "lo-big");
        assertTrue(big.available());
        assertEquals(DiscoverySource.DAT_CONF, big.source());
        assertEquals("size=1g", big.iaParams());
        assertEquals("lo-big", big.info().iaName(), "the entry's name is the IA's name");
        assertEquals("size=1g", big.info().iaParams());
        assertEquals(List.of(), log.problems());
        assertSame(opened, registry.open("lo-big", 3));
    }

    @Test
    void everyBadEntryIsAnUnavailableIaWithFileAndLineLogged() throws IOException {
        DatProvider loopback = provider("loopback", "loopback0");
        when(loopback.describe("refused", "")).thenThrow(new DatException(DatReturn.INVALID_PARAMETER,
                "ia_params: no such size"));
        when(loopback.describe("buggy", "")).thenThrow(new IllegalStateException("oops"));
        Path conf = write("""
                typo0 u1.2 threadsafe default lopback dapl.1.2 "" ""
                refused u1.2 threadsafe default loopback dapl.1.2 "" ""
                buggy u1.2 threadsafe default loopback dapl.1.2 "" ""
                kernel0 k1.2 threadsafe default loopback dapl.1.2 "" ""
                loopback0 u1.2 threadsafe default loopback dapl.1.2 "" ""
                future0 u2.0 threadsafe default loopback dapl.2.0 "" ""
                nullname0 u1.2 threadsafe default com.example.NoSuchProvider dapl.1.2 "" ""
                """);
        DatRegistry registry = DatRegistry.builder().logger(log).providers(List.of(loopback)).datConf(conf).build();
        String file = conf.toString();

        assertEquals("provider lopback not found; did you mean loopback?", iaEntry(registry,
                "typo0").unavailableReason());
        assertEquals("provider loopback cannot describe it: DAT_INVALID_PARAMETER: ia_params: no such size",
                iaEntry(registry, "refused").unavailableReason());
        assertEquals("provider loopback cannot describe it: java.lang.IllegalStateException: oops",
                iaEntry(registry, "buggy").unavailableReason());
        assertTrue(iaEntry(registry, "kernel0").unavailableReason().startsWith("a kDAPL entry (api_version k1.2)"));
        assertEquals("provider com.example.NoSuchProvider not found",
                iaEntry(registry, "nullname0").unavailableReason());
        assertTrue(registry.ias().stream().noneMatch(i -> i.name().equals("future0")), "malformed lines give no IA");
        assertTrue(registry.ias().get(0).available(), "the provider's own loopback0 wins");
        IaEntry duplicate = registry.ias().stream().filter(i -> i.source() == DiscoverySource.DAT_CONF
                && i.name().equals("loopback0")).findFirst().orElseThrow();
        assertEquals("duplicate IA name loopback0: already offered by provider loopback (explicit)",
                duplicate.unavailableReason());

        assertEquals(1, log.find(Level.WARNING, file + ":1: IA typo0 is unavailable").size(), log.entries()::toString);
        assertEquals(1, log.find(Level.WARNING, file + ":2: IA refused").size());
        assertEquals(1, log.find(Level.WARNING, file + ":3: IA buggy").size());
        assertEquals(1, log.find(Level.WARNING, file + ":4: IA kernel0").size());
        assertEquals(1, log.find(Level.WARNING, file + ":5: IA loopback0 ignored").size());
        assertEquals(1, log.find(Level.WARNING, file + ":6: api_version u2.0 is not supported").size());
        assertEquals(1, log.find(Level.WARNING, file + ":7: IA nullname0").size());
        assertEquals(7, log.problems().size(), log.entries()::toString);
    }

    @Test
    void providerNamedByClassIsLoadedInstantiatedAndListed() throws IOException {
        Path conf = write("c0 u1.2 threadsafe default " + ClassNamedProvider.class.getName() + " dapl.1.2 p \"\"\n"
                + "c1 u1.2 threadsafe default " + ClassNamedProvider.class.getName() + " dapl.1.2 q \"\"\n"
                + "t0 u1.2 threadsafe default " + ClassNamedProvider.Throwing.class.getName() + " dapl.1.2 \"\" \"\"\n"
                + "s0 u1.2 threadsafe default java.lang.String dapl.1.2 \"\" \"\"\n");
        DatRegistry registry = DatRegistry.builder().logger(log).providers(List.of()).datConf(conf).build();

        assertEquals(List.of("by-class", ClassNamedProvider.Throwing.class.getName(), "java.lang.String"),
                registry.providers().stream().map(ProviderEntry::name).toList(), "loaded once, then reused");
        ProviderEntry byClass = registry.providers().getFirst();
        assertTrue(byClass.available());
        assertEquals(DiscoverySource.DAT_CONF, byClass.source());
        assertEquals(ClassNamedProvider.class.getName(), byClass.className());
        assertEquals("q", iaEntry(registry, "c1").info().iaParams());

        assertEquals("could not be instantiated: java.lang.IllegalStateException: cannot start",
                registry.providers().get(1).unavailableReason());
        assertTrue(iaEntry(registry, "t0").unavailableReason().endsWith("cannot start"), iaEntry(registry,
                "t0")::toString);
        assertEquals("provider java.lang.String is unavailable: does not implement dat.spi.DatProvider",
                iaEntry(registry, "s0").unavailableReason());
    }

    @Test
    void missingFileIsAWarningNotAnError() {
        Path missing = dir.resolve("absent.conf");
        DatRegistry registry = DatRegistry.builder().logger(log).providers(List.of(provider("a", "a0")))
                .environment(Map.of("DAT_OVERRIDE", missing.toString())).build();
        assertEquals(List.of("a0"), registry.ias().stream().map(IaEntry::name).toList());
        assertEquals(1, log.find(Level.WARNING, missing + " (from DAT_OVERRIDE) does not exist").size(),
                log.entries()::toString);
        assertEquals(missing.toString(), registry.settings().get(1).currentValue());
    }

    @Test
    void environmentWinsOverPropertyAndNothingConfiguredMeansNoFile() throws IOException {
        Path fromEnv = Files.writeString(dir.resolve("env.conf"),
                "env0 u1.2 threadsafe default by-class-missing dapl.1.2 \"\" \"\"\n");
        Path fromProperty = Files.writeString(dir.resolve("prop.conf"),
                "prop0 u1.2 threadsafe default by-class-missing dapl.1.2 \"\" \"\"\n");
        DatRegistry both = DatRegistry.builder().logger(log).providers(List.of())
                .environment(Map.of("DAT_OVERRIDE", fromEnv.toString()))
                .properties(Map.of("dat.conf", fromProperty.toString())).build();
        assertEquals(List.of("env0"), both.ias().stream().map(IaEntry::name).toList());
        DatRegistry property = DatRegistry.builder().logger(log).providers(List.of())
                .properties(Map.of("dat.conf", fromProperty.toString())).build();
        assertEquals(List.of("prop0"), property.ias().stream().map(IaEntry::name).toList());
        DatRegistry none = DatRegistry.builder().logger(log).providers(List.of()).build();
        assertEquals(List.of(), none.ias());
        assertEquals("", none.settings().get(1).currentValue());
        assertFalse(log.entries().stream().anyMatch(e -> e.message().contains("does not exist")));
    }

    @Test
    void aNonUtf8ByteCostsOnlyItsOwnLineAndNamesFileAndLine() throws IOException {
        DatProvider loopback = provider("loopback", "loopback0");
        when(loopback.describe(anyString(), anyString())).thenAnswer(
                invocation -> ia(invocation.getArgument(0), "loopback"));
        byte[] latin1 = """
                # caf\u00e9: a Latin-1 comment
                lo-a u1.2 threadsafe default loopback dapl.1.2 "" ""
                lo-\u00e9 u1.2 threadsafe default loopback dapl.1.2 "" ""
                lo-b u1.2 threadsafe default loopback dapl.1.2 "" "" # r\u00e9sum\u00e9
                """
                .getBytes(StandardCharsets.ISO_8859_1);
        Path conf = Files.write(dir.resolve("dat.conf"), latin1);
        DatRegistry registry = DatRegistry.builder().logger(log).providers(List.of(loopback)).datConf(conf).build();

        assertTrue(iaEntry(registry, "lo-a").available(), registry::toString);
        assertTrue(iaEntry(registry, "lo-b").available(), registry::toString);
        assertEquals(List.of("loopback0", "lo-a", "lo-b"), registry.ias().stream().map(IaEntry::name).toList());
        List<RecordingLogger.Entry> line3 = log.find(Level.WARNING, conf + ":3:");
        assertEquals(1, line3.size(), log.entries()::toString);
        assertTrue(line3.getFirst().message().contains("0xE9"), line3.getFirst()::message);
        assertTrue(line3.getFirst().message().contains("UTF-8"), line3.getFirst()::message);
        assertEquals(1, log.find(Level.WARNING, conf + ":1:").size(), log.entries()::toString);
        assertTrue(log.entries().stream().allMatch(e -> e.thrown() == null || e.level() == Level.DEBUG),
                log.entries()::toString);
    }
}
