package lexical

import "strings"

// The stop words of each language: articles, prepositions, conjunctions,
// pronouns, determiners and the forms of the auxiliaries, which a question
// is full of and which match nearly every chunk. The query parser drops
// them from plain words (never from phrases); documents keep them.
//
// Each list covers the Snowball project's stop list for its language
// (snowballstem.org, algorithms/LANGUAGE/stop.txt), the lists written for
// the stemmers ragd uses, checked word by word, except for the words
// those lists hold that are content words in a project's text: Russian
// "жизнь", "человек", "говорил", "сказал(а)", "сказать", "хорошо",
// "лучше" and the numerals "один", "два", "три"; German "machen" and "weg".
// English keeps "can" and "will", which ragd listed from the start and
// Snowball leaves out as homonyms. Contractions are whole words here
// ("don't"): IsStopWord sees the query's word before it is split.
var stopLists = map[Language]string{
	English: `i me my myself we our ours ourselves you your yours yourself yourselves
		he him his himself she her hers herself it its itself they them their theirs themselves
		what which who whom this that these those
		am is are was were be been being have has had having do does did doing
		would should could ought can will
		i'm you're he's she's it's we're they're i've you've we've they've i'd you'd he'd she'd
		we'd they'd i'll you'll he'll she'll we'll they'll
		isn't aren't wasn't weren't hasn't haven't hadn't doesn't don't didn't
		won't wouldn't shan't shouldn't can't cannot couldn't mustn't
		let's that's who's what's here's there's when's where's why's how's
		a an the and but if or because as until while
		of at by for with about against between into through during before after above below
		to from up down in out on off over under again further then once
		here there when where why how all any both each few more most other some such
		no nor not only own same so than too very`,
	Russian: `а без более больше будет будто бы был была были было быть в вам вас вдруг ведь во
		вот впрочем все всё всегда всего всех всю вы где да даже для до другой его ее её ей ему
		если есть еще ещё ж же за зато зачем здесь и из или им иногда их к кажется как какая
		какие какой когда конечно кто куда ли либо лишь между меня мне много может можно мой моя
		мы на над надо наконец нас не него нее неё ней нельзя нет ни нибудь никогда ним них
		ничего но ну о об однако он она они оно опять от перед по под после потом потому поэтому
		почти при про раз разве с сам свой свои свою своя себе себя сегодня сейчас со совсем так
		также такая такие такой там тебя тем теперь то тогда того тоже только том тот тут ты у
		уж уже хоть хотя чего чем через что чтоб чтобы чуть эта эти этим этих это этого этой этом
		этот эту я
		который которая которое которые которых которого которой котором которую`,
	Portuguese: `a à ao aos aquela aquelas aquele aqueles aquilo as às até com como da das de dela
		delas dele deles depois do dos e é ela elas ele eles em entre era eram éramos essa essas
		esse esses esta está estamos estão estas estava estavam estávamos este esteja estejam
		estejamos estes esteve estive estivemos estiver estivera estiveram estivéramos estiverem
		estivermos estivesse estivessem estivéssemos estou eu foi fomos for fora foram fôramos
		forem formos fosse fossem fôssemos fui há haja hajam hajamos hão havemos haver hei houve
		houvemos houver houvera houverá houveram houvéramos houverão houverei houverem houveremos
		houveria houveriam houveríamos houvermos houvesse houvessem houvéssemos isso isto já lhe
		lhes mais mas me mesmo meu meus minha minhas muito na nas nem no nos nós nossa nossas
		nosso nossos num numa não o onde os ou para pela pelas pelo pelos por porque qual quando que
		quem se seja sejam sejamos sem ser será serão serei seremos seria seriam seríamos seu
		seus só sob sobre somos sou sua suas são também te tem têm temos tenha tenham tenhamos
		tenho ter terá terão terei teremos teria teriam teríamos teu teus teve tinha tinham tínhamos
		tive tivemos tiver tivera tiveram tivéramos tiverem tivermos tivesse tivessem
		tivéssemos tu tua tuas um uma umas uns você vocês vos`,
	Spanish: `a al algo algunas algunos ante antes como con contra cual cuando de del desde
		donde durante e el él ella ellas ellos en entre era erais éramos eran eras eres es esa
		esas ese eso esos esta está estaba estabais estábamos estaban estabas estad estada
		estadas estado estados estáis estamos están estando estar estaremos estará estarán
		estarás estaré estaréis estaría estaríais estaríamos estarían estarías estas estás este
		esté estéis estemos estén estés esto estos estoy estuve estuviera estuvierais
		estuviéramos estuvieran estuvieras estuvieron estuviese estuvieseis estuviésemos
		estuviesen estuvieses estuvimos estuviste estuvisteis estuvo fue fuera fuerais
		fuéramos fueran fueras fueron fuese fueseis fuésemos fuesen fueses fui fuimos fuiste
		fuisteis ha habéis había habíais habíamos habían habías han has hasta hay haya hayáis
		hayamos hayan hayas he hemos hube hubiera hubierais hubiéramos hubieran hubieras
		hubieron hubiese hubieseis hubiésemos hubiesen hubieses hubimos hubiste hubisteis hubo
		la las le les lo los más me mi mí mía mías mío míos mis mucho muchos muy nada ni no nos
		nosotras nosotros nuestra nuestras nuestro nuestros o os otra otras otro otros para pero
		poco por porque que qué quien quienes se sea seáis seamos sean seas será seremos serán
		serás seré seréis sería seríais seríamos serían serías si sí sido siendo sin sobre sois
		somos son soy su sus suya suyas suyo suyos también tanto te tendrá tendremos tendrán
		tendrás tendré tendréis tendría tendríais tendríamos tendrían tendrías tened tenemos
		tenéis tenga tengáis tengamos tengan tengas tengo tenía teníais teníamos tenían tenías
		tenida tenidas tenido tenidos teniendo ti tiene tienen tienes todo todos tu tú tus tuve
		tuviera tuvierais tuviéramos tuvieran tuvieras tuvieron tuviese tuvieseis tuviésemos
		tuviesen tuvieses tuvimos tuviste tuvisteis tuvo tuya tuyas tuyo tuyos u un una unas uno
		unos usted ustedes vosotras vosotros vuestra vuestras vuestro vuestros y ya yo`,
	German: `aber alle allem allen aller alles als also am an ander andere anderem anderen
		anderer anderes anderm andern anderr anders auch auf aus bei bin bis bist da damit dann
		das dass dasselbe dazu daß dein deine deinem deinen deiner deines dem demselben den denn
		denselben der derer derselbe derselben des desselben dessen dich die dies diese dieselbe
		dieselben diesem diesen dieser dieses dir doch dort du durch ein eine einem einen einer
		eines einig einige einigem einigen einiger einiges einmal er es etwas euch euer eure
		eurem euren eurer eures für gegen gewesen hab habe haben hat hatte hatten hier hin
		hinter ich ihm ihn ihnen ihr ihre ihrem ihren ihrer ihres im in indem ins ist jede jedem
		jeden jeder jedes jene jenem jenen jener jenes jetzt kann kein keine keinem keinen keiner
		keines können könnte man manche manchem manchen mancher manches mein meine meinem meinen
		meiner meines mich mir mit muss musste nach nicht nichts noch nun nur ob oder ohne sehr
		sein seine seinem seinen seiner seines schon selbst sich sie sind so solche solchem solchen
		solcher solches soll sollte sondern sonst um und uns unsere unserem unseren unser
		unseres unter viel vom von vor war waren warst was weil weiter welche welchem welchen
		welcher welches wenn werde werden wie wieder will wir wird wirst wo wollen wollte während
		würde würden wurde zu zum zur zwar zwischen über`,
	French: `à ai aie aient aies ait au aura aurai auraient aurais aurait auras aurez auriez
		aurions aurons auront aux avaient avais avait avec avez aviez avions avons ayant ayez
		ayons c ce ceci cela celà ces cet cette d dans de des du elle elles en es est et étaient
		étais était étant été étée étées étés étiez étions être eu eue eues eûmes eurent eus
		eusse eussent eusses eussiez eussions eut eût eûtes eux furent fus fusse fussent fusses
		fussiez fussions fut fût fûmes fûtes ici il ils j je l la le les leur leurs lui m ma
		mais me même mes moi mon n ne nos notre nous on ont ou où par pas plus pour qu que quel
		quelle quelles quels qui s sa sans se sera serai seraient serais serait seras serez
		seriez serions serons seront ses si soi soient sois soit sommes son sont soyez soyons
		suis sur t ta te tes toi ton tu un une vos votre vous y`,
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
