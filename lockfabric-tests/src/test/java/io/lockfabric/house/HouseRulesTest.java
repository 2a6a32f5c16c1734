package io.lockfabric.house;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.constantpool.PoolEntry;
import java.lang.classfile.constantpool.Utf8Entry;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BiPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The rules of the house (DESIGN.md, "The house"), checked on the compiled main classes of every
 * module: which package may use which. A use is any mention of a class in a class file's constant
 * pool (class references, field and method descriptors, signatures), so a fully qualified name in
 * code counts as much as an import. Test classes (test-classes directories and test-jars) are not
 * checked: tests may reach across floors.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HouseRulesTest {
    /** A class of the house named in a class file: group 1 is its package below io/lockfabric/ (empty for the client API's). */
    private static final Pattern MENTION = Pattern.compile("io/lockfabric/((?:[a-z0-9_]+/)*)[A-Z][A-Za-z0-9_$]*");

    /** Main classes by binary name, each with the packages it mentions (dotted), its own left out. */
    private final Map<String, Set<String>> uses = new TreeMap<>();

    @BeforeAll
    void readMainClasses() throws IOException {
        for (String entry : System.getProperty("java.class.path").split(java.io.File.pathSeparator)) {
            Path path = Path.of(entry);
            String name = path.getFileName() == null ? "" : path.getFileName().toString();
            if (!path.toString().contains("lockfabric") || entry.contains("test-classes") || name.endsWith("-tests.jar")) {
                continue;
            }
            if (Files.isDirectory(path)) {
                try (Stream<Path> files = Files.walk(path)) {
                    for (Path f : files.filter(p -> p.toString().endsWith(".class")).toList()) {
                        read(path.relativize(f).toString().replace(java.io.File.separatorChar, '/'), Files.readAllBytes(f));
                    }
                }
            } else if (name.endsWith(".jar") && Files.isRegularFile(path)) {
                try (ZipFile zip = new ZipFile(path.toFile())) {
                    for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements(); ) {
                        ZipEntry z = e.nextElement();
                        if (z.getName().startsWith("io/lockfabric/") && z.getName().endsWith(".class")) {
                            try (InputStream in = zip.getInputStream(z)) {
                                read(z.getName(), in.readAllBytes());
                            }
                        }
                    }
                }
            }
        }
        assertTrue(uses.keySet().stream().anyMatch(c -> c.startsWith("io.lockfabric.fabric.")),
                "found no main classes of lockfabric-fabric on the class path: " + System.getProperty("java.class.path"));
    }

    private void read(String file, byte[] bytes) {
        if (!file.startsWith("io/lockfabric/") || file.endsWith("module-info.class")) {
            return;
        }
        String className = file.substring(0, file.length() - ".class".length()).replace('/', '.');
        String own = packageOf(className);
        ClassModel model = ClassFile.of().parse(bytes);
        Set<String> mentioned = uses.computeIfAbsent(className, k -> new TreeSet<>());
        for (PoolEntry entry : model.constantPool()) {
            if (entry instanceof Utf8Entry utf8) {
                Matcher m = MENTION.matcher(utf8.stringValue());
                while (m.find()) {
                    String sub = m.group(1);
                    String pkg = sub.isEmpty() ? CLIENT_API : "io.lockfabric." + sub.substring(0, sub.length() - 1).replace('/', '.');
                    if (!pkg.equals(own)) {
                        mentioned.add(pkg);
                    }
                }
            }
        }
    }

    private static String packageOf(String className) {
        return className.substring(0, className.lastIndexOf('.'));
    }

    private static boolean inOrUnder(String pkg, String root) {
        return pkg.equals(root) || pkg.startsWith(root + ".");
    }

    /** Every (class, used package) of classes in packages {@code from} accepts that breaks {@code allowed}. */
    private List<String> breaches(java.util.function.Predicate<String> from, BiPredicate<String, String> allowed) {
        List<String> out = new ArrayList<>();
        uses.forEach((cls, pkgs) -> {
            String own = packageOf(cls);
            if (from.test(own)) {
                for (String used : pkgs) {
                    if (!allowed.test(own, used)) {
                        out.add(cls + " uses " + used);
                    }
                }
            }
        });
        return out;
    }

    private static boolean isFabricSpi(String pkg) {
        return inOrUnder(pkg, "io.lockfabric.fabric");
    }

    /** The client API's package: the root of the house's packages. */
    private static final String CLIENT_API = "io.lockfabric";

    /** The client API floor: {@code io.lockfabric} itself and its machinery, {@code io.lockfabric.client}. */
    private static boolean isClientApi(String pkg) {
        return pkg.equals(CLIENT_API) || inOrUnder(pkg, "io.lockfabric.client");
    }

    private static boolean isProtocol(String pkg) {
        return pkg.startsWith("io.lockfabric.lock.");
    }

    @Test
    void theFabricSpiNamesNoImplementationAndNoProtocol() {
        List<String> found = breaches(HouseRulesTest::isFabricSpi, (own, used) -> isFabricSpi(used));
        assertTrue(found.isEmpty(), "the fabric SPI (io.lockfabric.fabric*) may use only itself:\n" + String.join("\n", found));
    }

    @Test
    void theFabricSpiPackageIsALeaf() {
        List<String> found = breaches(pkg -> pkg.equals("io.lockfabric.fabric"), (own, used) -> false);
        assertTrue(found.isEmpty(), "io.lockfabric.fabric (the SPI) names nothing else of the house, not even the memory "
                + "node that implements it:\n" + String.join("\n", found));
    }

    @Test
    void aProtocolUsesOnlyTheTwoSpisAndItsOwnPackage() {
        List<String> found = breaches(HouseRulesTest::isProtocol,
                (own, used) -> used.equals("io.lockfabric.fabric") || used.equals("io.lockfabric.lock") || used.equals(own));
        assertTrue(found.isEmpty(), "a protocol may use io.lockfabric.fabric, io.lockfabric.lock and its own package only:\n"
                + String.join("\n", found));
    }

    @Test
    void theLockSpiUsesOnlyTheFabricSpi() {
        List<String> found = breaches(pkg -> pkg.equals("io.lockfabric.lock"),
                (own, used) -> used.equals("io.lockfabric.fabric"));
        assertTrue(found.isEmpty(), "the lock SPI may use io.lockfabric.fabric only:\n" + String.join("\n", found));
    }

    @Test
    void fabricsUseOnlyTheFabricFloorAndNeverEachOther() {
        for (String fabric : List.of("io.lockfabric.local", "io.lockfabric.sim", "io.lockfabric.net", "io.lockfabric.shm")) {
            List<String> found = breaches(pkg -> inOrUnder(pkg, fabric),
                    (own, used) -> isFabricSpi(used) || inOrUnder(used, fabric));
            assertTrue(found.isEmpty(), fabric + " may use the fabric floor and itself only (not another fabric, "
                    + "not a protocol):\n" + String.join("\n", found));
        }
    }

    @Test
    void theClientApiUsesTheSpisAndTheRegistriesOnly() {
        List<String> found = breaches(HouseRulesTest::isClientApi,
                (own, used) -> isClientApi(used) || used.equals("io.lockfabric.fabric") || used.equals("io.lockfabric.lock")
                        || used.equals("io.lockfabric.protocols"));
        assertTrue(found.isEmpty(), "the client API may use io.lockfabric.fabric, io.lockfabric.lock, io.lockfabric.protocols "
                + "and itself only (the fabrics through Fabrics.open's providers, never by name):\n" + String.join("\n", found));
    }

    @Test
    void nothingBelowTheClientApiUsesIt() {
        List<String> found = breaches(pkg -> isFabricSpi(pkg) || inOrUnder(pkg, "io.lockfabric.local")
                        || inOrUnder(pkg, "io.lockfabric.sim") || inOrUnder(pkg, "io.lockfabric.net")
                        || inOrUnder(pkg, "io.lockfabric.shm")
                        || inOrUnder(pkg, "io.lockfabric.lock") || inOrUnder(pkg, "io.lockfabric.protocols")
                        || inOrUnder(pkg, "io.lockfabric.check"),
                (own, used) -> !isClientApi(used));
        assertTrue(found.isEmpty(), "the floors below the client API never use it:\n" + String.join("\n", found));
    }

    /** The ecosystem adapters (lockfabric-adapters): one package per library. */
    private static boolean isAdapter(String pkg) {
        return inOrUnder(pkg, "io.lockfabric.spring") || inOrUnder(pkg, "io.lockfabric.shedlock");
    }

    @Test
    void theAdaptersUseTheClientApiOnlyAndNothingUsesThem() {
        List<String> found = breaches(HouseRulesTest::isAdapter,
                (own, used) -> used.equals(CLIENT_API) || used.equals("io.lockfabric.lock") || used.equals(own));
        found.addAll(breaches(pkg -> !isAdapter(pkg), (own, used) -> !isAdapter(used)));
        assertTrue(found.isEmpty(), "an adapter may use the client API (io.lockfabric, and Mode from io.lockfabric.lock) "
                + "and its own package only, and nothing of the house uses an adapter:\n" + String.join("\n", found));
    }

    @Test
    void nothingBelowTheBenchUsesTheBenchOrTheCli() {
        List<String> found = breaches(pkg -> !inOrUnder(pkg, "io.lockfabric.bench") && !inOrUnder(pkg, "io.lockfabric.cli")
                        && !isCompare(pkg),
                (own, used) -> !inOrUnder(used, "io.lockfabric.bench") && !inOrUnder(used, "io.lockfabric.cli"));
        found.addAll(breaches(pkg -> inOrUnder(pkg, "io.lockfabric.bench") || isCompare(pkg),
                (own, used) -> !inOrUnder(used, "io.lockfabric.cli")));
        assertTrue(found.isEmpty(), "the floors below bench never use bench, nothing uses the cli:\n" + String.join("\n", found));
    }

    /** lockfabric-compare: the peers' client libraries, a floor above bench, below the cli. */
    private static boolean isCompare(String pkg) {
        return inOrUnder(pkg, "io.lockfabric.compare");
    }

    @Test
    void theComparisonUsesTheClientApiAndOnlyTheCliUsesIt() {
        List<String> found = breaches(HouseRulesTest::isCompare,
                (own, used) -> used.equals(CLIENT_API) || used.equals("io.lockfabric.lock") || used.equals("io.lockfabric.net")
                        || used.equals("io.lockfabric.bench") || isTxn(used) || isCompare(used));
        found.addAll(breaches(pkg -> !isCompare(pkg) && !inOrUnder(pkg, "io.lockfabric.cli"), (own, used) -> !isCompare(used)));
        assertTrue(found.isEmpty(), "io.lockfabric.compare (whose module brings the peers' libraries: Redisson, Curator, "
                + "ZooKeeper, Hazelcast) may use the client API, Mode, the tcp memory node it runs, bench's key choice "
                + "and the transactions (io.lockfabric.txn: SmallBank on Redis) only, and nothing but the cli uses it:\n" + String.join("\n", found));
    }

    /** lockfabric-txn: the transaction engine and its workloads, an application on the client API. */
    private static boolean isTxn(String pkg) {
        return inOrUnder(pkg, "io.lockfabric.txn");
    }

    @Test
    void transactionsUseTheClientApiAndOnlyTheFloorsAboveUseThem() {
        List<String> found = breaches(HouseRulesTest::isTxn,
                (own, used) -> used.equals(CLIENT_API) || used.equals("io.lockfabric.lock") || isTxn(used));
        found.addAll(breaches(pkg -> !isTxn(pkg) && !inOrUnder(pkg, "io.lockfabric.bench") && !isCompare(pkg)
                && !inOrUnder(pkg, "io.lockfabric.cli"), (own, used) -> !isTxn(used)));
        assertTrue(found.isEmpty(), "io.lockfabric.txn (2PL transactions, TATP, TPC-C, SmallBank) may use the client API "
                + "(io.lockfabric) and the lock SPI's values (io.lockfabric.lock) only, and only bench, compare and the cli "
                + "use it:\n" + String.join("\n", found));
    }

    /** lockfabric-apps: the object store and the B+-tree, applications with their data on the memory node. */
    private static boolean isApps(String pkg) {
        return inOrUnder(pkg, "io.lockfabric.apps");
    }

    @Test
    void applicationsUseTheApiAndTheSpisAndOnlyTheFloorsAboveUseThem() {
        List<String> found = breaches(HouseRulesTest::isApps,
                (own, used) -> used.equals(CLIENT_API) || inOrUnder(used, "io.lockfabric.lock") || used.equals("io.lockfabric.protocols")
                        || used.equals("io.lockfabric.fabric") || isApps(used));
        found.addAll(breaches(pkg -> !isApps(pkg) && !inOrUnder(pkg, "io.lockfabric.bench") && !inOrUnder(pkg, "io.lockfabric.cli"),
                (own, used) -> !isApps(used)));
        assertTrue(found.isEmpty(), "io.lockfabric.apps (object store, B+-tree) may use the client API (io.lockfabric), "
                + "the lock SPI and its registry, and the fabric SPI only, and only bench and the cli use it:\n" + String.join("\n", found));
    }

    @Test
    void noMainClassKeepsAStaticMutableCollection() throws Exception {
        List<String> found = new ArrayList<>();
        for (String cls : uses.keySet()) {
            if (inOrUnder(packageOf(cls), "io.lockfabric.cli")) {
                continue; // not on this module's class path
            }
            Class<?> c = Class.forName(cls, false, getClass().getClassLoader());
            for (Field f : c.getDeclaredFields()) {
                if (!Modifier.isStatic(f.getModifiers()) || f.isSynthetic()
                        || !(Map.class.isAssignableFrom(f.getType()) || Collection.class.isAssignableFrom(f.getType()))) {
                    continue;
                }
                if (!Modifier.isFinal(f.getModifiers())) {
                    found.add(cls + "." + f.getName() + " (static, not final)");
                    continue;
                }
                f.setAccessible(true);
                Object value = f.get(null);
                if (value != null && !isUnmodifiable(value)) {
                    found.add(cls + "." + f.getName() + " (" + value.getClass().getName() + ")");
                }
            }
        }
        assertTrue(found.isEmpty(), "static mutable collections are hidden global state; give the state an owner "
                + "(the fabric, the endpoint, the compute node):\n" + String.join("\n", found));
    }

    /** Whether a collection refuses changes (the JDK's immutable and unmodifiable views). */
    private static boolean isUnmodifiable(Object value) {
        String type = value.getClass().getName();
        return type.startsWith("java.util.ImmutableCollections$") || type.startsWith("java.util.Collections$Unmodifiable")
                || type.startsWith("java.util.Collections$Empty") || type.startsWith("java.util.Collections$Singleton");
    }

    @Test
    void theRulesSeeTheWholeHouse() {
        for (String pkg : List.of("io.lockfabric.fabric", "io.lockfabric.fabric.memory", "io.lockfabric.local",
                "io.lockfabric.sim", "io.lockfabric.net", "io.lockfabric.shm", "io.lockfabric.lock", "io.lockfabric.lock.citron",
                "io.lockfabric.protocols", "io.lockfabric.check", CLIENT_API, "io.lockfabric.client", "io.lockfabric.bench",
                "io.lockfabric.spring", "io.lockfabric.shedlock", "io.lockfabric.compare", "io.lockfabric.txn")) {
            assertTrue(uses.keySet().stream().anyMatch(c -> packageOf(c).equals(pkg)), "no main class of " + pkg + " found");
        }
        assertFalse(uses.keySet().stream().anyMatch(c -> c.endsWith("Test")), "test classes were read as main classes");
    }
}
