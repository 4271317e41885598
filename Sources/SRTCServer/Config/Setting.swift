/// A value of the wrong form; `applying` names the setting.
struct BadValue: Error {}

/// One configurable setting.
struct Setting: Sendable {
    let flag: String
    let envName: String
    let jsonKey: String
    let help: String
    let apply: @Sendable (inout ServerConfig, String) throws -> Void

    init(_ flag: String, _ envName: String, _ jsonKey: String, _ help: String,
         apply: @escaping @Sendable (inout ServerConfig, String) throws -> Void) {
        self.flag = flag; self.envName = envName; self.jsonKey = jsonKey; self.help = help; self.apply = apply
    }
}
