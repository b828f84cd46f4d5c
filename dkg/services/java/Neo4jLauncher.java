import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.GraphDatabaseService;

/**
 * Runs Neo4j Community as a local server: the embedded DBMS with the Bolt connector on loopback.
 *
 * Arguments: home directory, neo4j.conf written by the Python side, password file (mode 600).
 * Prints "DKG-NEO4J-READY" once Bolt accepts connections; shuts down cleanly on SIGTERM.
 */
public final class Neo4jLauncher {
    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: Neo4jLauncher HOME_DIR CONF_FILE PASSWORD_FILE");
            System.exit(2);
        }
        Path home = Path.of(args[0]);
        Path conf = Path.of(args[1]);
        String password = Files.readString(Path.of(args[2])).strip();

        DatabaseManagementService dbms = new DatabaseManagementServiceBuilder(home)
                .loadPropertiesFromFile(conf)
                .build();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            System.out.println("DKG-NEO4J-STOPPING");
            dbms.shutdown();
            System.out.println("DKG-NEO4J-STOPPED");
            stopped.countDown();
        }, "dkg-neo4j-shutdown"));

        GraphDatabaseService system = dbms.database("system");
        try {
            system.executeTransactionally(
                    "ALTER USER neo4j SET PLAINTEXT PASSWORD $password CHANGE NOT REQUIRED",
                    Map.of("password", password));
        } catch (RuntimeException e) {
            // Re-setting the current password is refused by Neo4j; that is the normal restart case.
            String message = String.valueOf(e.getMessage());
            if (!message.contains("Old password and new password cannot be the same")) {
                throw e;
            }
        }
        dbms.database("neo4j").executeTransactionally("RETURN 1");
        System.out.println("DKG-NEO4J-READY");
        System.out.flush();
        stopped.await();
    }
}
