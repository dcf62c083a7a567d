/// Sentences for espeak-ng in several languages, about half with commas (which espeak-ng speaks
/// as short pauses), all under 8 s when spoken, so that no correct detector needs to split one.
public enum SentenceCorpus {
    public static let byVoice: [(voice: String, sentences: [String])] = [
        ("en", [
            "When the rain stopped, we walked down to the harbour.",
            "Could you tell me where the station is?",
            "My sister, who lives in Leeds, is coming on Sunday.",
            "I would like a cup of tea, please.",
            "First, open the window, then turn off the heater.",
            "The museum is closed on Mondays.",
            "If you have time tomorrow, call me after lunch.",
            "Thank you very much.",
        ]),
        ("fr", [
            "Le matin, je prends un café, puis je pars au travail.",
            "Pouvez-vous parler plus lentement, s'il vous plaît ?",
            "Nous avons visité le musée hier après-midi.",
            "Quand il fait beau, les enfants jouent dans le jardin.",
            "Je voudrais deux billets pour Lyon.",
            "Mon frère, qui habite à Marseille, arrive ce soir.",
            "La bibliothèque ferme à dix-huit heures.",
            "D'accord, à demain.",
        ]),
        ("de", [
            "Am Wochenende fahren wir mit dem Zug nach Hamburg.",
            "Wenn es regnet, bleiben wir zu Hause.",
            "Können Sie mir bitte helfen?",
            "Meine Kollegin, die aus Wien kommt, spricht vier Sprachen.",
            "Zuerst kochen wir Wasser, dann gießen wir den Tee auf.",
            "Das Restaurant ist heute leider geschlossen.",
            "Ich lerne seit zwei Jahren Spanisch.",
            "Ja, gerne.",
        ]),
        ("es", [
            "Por la mañana, desayuno pan con tomate y café.",
            "¿Dónde está la parada del autobús?",
            "Mi abuela, que vive en Sevilla, cocina muy bien.",
            "Necesito comprar leche, huevos y fruta.",
            "El tren sale a las ocho y media.",
            "Si tienes tiempo, llámame esta tarde.",
            "Hace mucho calor en verano.",
            "Muchas gracias, hasta luego.",
        ]),
        ("it", [
            "La domenica, andiamo al mare con gli amici.",
            "Vorrei un caffè e un cornetto, per favore.",
            "Il treno per Roma parte dal binario tre.",
            "Quando ero piccolo, abitavo in campagna.",
            "Scusi, sa dov'è la farmacia?",
            "Oggi il museo è chiuso.",
            "Mio cugino, che studia a Bologna, viene a trovarci.",
            "Buona notte.",
        ]),
        ("cmn", [
            "我每天早上七点起床。",
            "如果明天下雨，我们就不去公园了。",
            "请问，火车站怎么走？",
            "这家饭馆的菜很好吃。",
            "我的朋友住在上海，他是老师。",
            "周末我们一起去看电影吧。",
        ]),
    ]
}
