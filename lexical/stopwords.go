package lexical

import "strings"

// The stop words of each language: articles, prepositions, conjunctions,
// pronouns and auxiliaries, which a question is full of and which match
// nearly every chunk. The query parser drops them from plain words (never
// from phrases); documents keep them. English is the list ragd has used
// since its start, unchanged, so English ranking stays as measured.
var stopLists = map[Language]string{
	English: `a an and are as at be but by can do does for from had has have how i if in
		into is it its me my no not of on or our so than that the their then there these they this to
		was we were what when where which who whom why will with would you your`,
	Russian: `а без бы был была были было быть в вам вас ведь во вот все всё вы где да для до
		его ее её ей ему если есть еще ещё же за зато и из или им их к как какая какие какой
		когда кто ли либо лишь между мне мы на над надо не него нее неё нет ни них но ну о об
		однако он она они оно от по под после потом потому поэтому при про с сам свой свои своя
		себе себя со так также такая такие такой там тем то тогда тоже только тут ты у уже хотя
		чем через что чтоб чтобы эта эти этим этих это этого этой этом этот я
		который которая которое которые которых которого которой котором которую`,
	Portuguese: `a à ao aos as às com como da das de do dos e é ela elas ele eles em entre era
		essa essas esse esses esta estas este estes eu foi há isso isto já lhe lhes mais mas me
		meu minha muito na nas não no nos nós o onde os ou para pela pelas pelo pelos por porque
		quando que se sem seu seus sob sobre sua suas são também te tem ter um uma umas uns você
		vocês`,
	Spanish: `a al como con cuando de del donde e el él ella ellas ellos en entre era es esa
		esas ese eso esos esta estas este esto estos fue ha han hasta hay la las le les lo los
		más me mi mis muy no nos o para pero por porque que se sin sobre son su sus también te
		tiene tú u un una unas uno unos usted ustedes y ya yo`,
	German: `als am an auch auf aus bei bis da dass daß dem den der des die dies diese dieser
		dieses du durch ein eine einem einen einer eines er es für gegen hat haben ich ihr im in
		ins ist kein keine man mit nach nicht noch nur oder ohne schon sehr sich sie sind so um
		und unter von vor war waren was wenn werden wie wir wird wurde zu zum zur über`,
	French: `à au aux avec c ce ces cet cette d dans de des du elle elles en est et été être
		il ils j je l la le les leur leurs lui m mais n ne nous on ont ou où par pas plus pour
		qu que qui s sa sans se ses si son sont sur t tu un une vous y`,
}

// stopWords returns lang's stop words, each also in its folded form so
// that "não" and "nao" are both known. A Russian project's Latin words
// are English, so it gets the English list too; Simple, which serves
// text no stemmer fits, gets the English list, as every project had.
func stopWords(lang Language) map[string]bool {
	out := map[string]bool{}
	add := func(l Language) {
		for _, w := range strings.Fields(stopLists[l]) {
			out[w] = true
			out[fold(w)] = true
		}
	}
	switch lang {
	case Russian:
		add(Russian)
		add(English)
	case Simple:
		add(English)
	default:
		add(lang)
	}
	return out
}
