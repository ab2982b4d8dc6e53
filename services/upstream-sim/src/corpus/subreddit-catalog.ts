/**
 * The fixed list of simulated subreddits. Names are stable across seeds (handy
 * for docs and other teams' tests); every number about them comes from the seed.
 * Names start with many different letters so prefix searches are meaningful.
 */
export interface SubredditSpec {
  readonly name: string;
  readonly title: string;
  readonly topics: readonly string[];
  readonly flairs: readonly string[];
  readonly over18: boolean;
  /** Share of self (text) posts; the rest are links, images and videos. */
  readonly selfShare: number;
}

const spec = (
  name: string,
  title: string,
  topics: string,
  flairs: string,
  selfShare: number,
  over18 = false,
): SubredditSpec => ({
  name,
  title,
  topics: topics.split(","),
  flairs: flairs ? flairs.split(",") : [],
  over18,
  selfShare,
});

export const SUBREDDIT_CATALOG: readonly SubredditSpec[] = [
  spec("AskHistorians", "AskHistorians", "empire,treaty,medieval castle,roman legion,printing press,silk road,plague,dynasty,revolution,samurai", "Medieval,Ancient,Modern,Meta", 0.97),
  spec("typescript", "TypeScript", "generic,type guard,union type,tsconfig,decorator,mapped type,enum,interface,compiler,module resolution", "Help,Discussion,Showcase", 0.8),
  spec("Cooking", "Cooking", "cast iron pan,risotto,braise,stock,knife,sourdough starter,chili,roast chicken,spice blend,dumpling", "", 0.7),
  spec("zen_garden", "Zen Garden", "raked gravel,moss,bonsai,stone lantern,koi pond,bamboo,meditation bench,maple,pebble path,water basin", "Photo,Question,Design", 0.3),
  spec("birdwatching", "Birdwatching", "warbler,heron,binoculars,feeder,hawk,owl,migration,field guide,hummingbird,woodpecker", "ID Request,Photo,Sighting", 0.35),
  spec("DIY", "DIY: Do It Yourself", "drywall,deck,tile,faucet,circuit breaker,shelf,paint,fence,insulation,concrete slab", "home improvement,woodworking,electrical,plumbing", 0.55),
  spec("EarthPorn", "EarthPorn: Amazing images of light and landscape", "mountain,glacier,canyon,waterfall,desert,fjord,forest,sunset,lake,coastline", "", 0.02),
  spec("Fitness", "Fitness", "deadlift,squat,protein,cardio,program,bench press,cut,bulk,rest day,mobility", "", 0.9),
  spec("gardening", "Gardening", "tomato,compost,raised bed,seedling,aphid,hydrangea,pepper plant,mulch,soil,pruning", "Question,Advice,Photo", 0.5),
  spec("homelab", "Home Lab", "proxmox,rack,switch,NAS,VLAN,UPS,mini PC,firewall,docker host,ZFS pool", "Help,Discussion,LabPorn,Projects", 0.65),
  spec("interestingasfuck", "Interesting As Fuck", "octopus,volcano,machine,optical illusion,ancient tool,bridge,jellyfish,glass,lightning,robot", "", 0.05),
  spec("javascript", "JavaScript", "promise,closure,event loop,bundler,framework,async function,array method,node module,DOM,prototype", "Help,Showcase", 0.75),
  spec("KitchenConfidential", "Kitchen Confidential", "line cook,sous chef,ticket,walk-in,brunch shift,dish pit,mise en place,expo,flat top,health inspector", "", 0.6),
  spec("LifeProTips", "Life Pro Tips", "budget,habit,receipt,calendar,inbox,cleaning,car maintenance,phone,subscription,insurance", "Productivity,Home & Garden,Finance,Miscellaneous", 0.98),
  spec("mechanicalkeyboards", "Mechanical Keyboards", "switch,keycap set,lube,stabilizer,PCB,case,group buy,tactile switch,spacebar,plate", "Photos,Help,Discussion", 0.3),
  spec("NoStupidQuestions", "No Stupid Questions", "microwave,airplane,tax,dream,cat,language,weather,sleep,money,traffic", "Unanswered,Answered", 1),
  spec("oddlysatisfying", "Oddly Satisfying", "pressure washer,soap cutting,kinetic sand,domino run,paint pour,tile fit,cake icing,lathe,rug cleaning,sorting", "", 0.02),
  spec("personalfinance", "Personal Finance", "Roth IRA,emergency fund,credit score,mortgage,401k,student loan,index fund,budget,HSA,tax refund", "Retirement,Debt,Investing,Budgeting,Housing", 0.97),
  spec("quilting", "Quilting", "fat quarter,binding,batting,walking foot,block,longarm,free motion,applique,scrap quilt,rotary cutter", "Finished,WIP,Help", 0.35),
  spec("rust", "The Rust Programming Language", "borrow checker,lifetime,trait,crate,async runtime,macro,cargo,unsafe block,iterator,Result type", "", 0.7),
  spec("Sourdough", "Sourdough", "starter,levain,crumb,hydration,banneton,bulk ferment,scoring,discard,dutch oven,autolyse", "Let's talk,Crumb critique,Beginner", 0.4),
  spec("TrueCrimeDiscussion", "True Crime Discussion", "cold case,detective,trial,verdict,podcast,DNA evidence,suspect,witness,documentary,alibi", "Discussion,News,Media", 0.6),
  spec("urbanplanning", "Urban Planning", "zoning,bike lane,transit,density,parking minimum,streetcar,housing,walkability,highway,suburb", "Transportation,Land Use,Discussion", 0.3),
  spec("vinyl", "Vinyl", "turntable,pressing,record store,stylus,first press,box set,sleeve,cartridge,haul,reissue", "", 0.4),
  spec("woodworking", "Woodworking", "walnut,dovetail,table saw,router,finish,chisel,workbench,epoxy,hand plane,jig", "Project - Share & Critique,Help,Tools", 0.3),
  spec("xkcd", "xkcd", "comic,alt text,explainxkcd,stick figure,physics,password,standard,map,graph,what if", "", 0.4),
  spec("YouShouldKnow", "You Should Know", "scam,warranty,privacy setting,tenant right,medication,recall,password manager,smoke detector,tire,refund", "", 0.98),
  spec("AskReddit", "Ask Reddit...", "job,friend,movie,childhood,habit,city,food,secret,advice,hobby", "", 1),
  spec("books", "books", "novel,library,author,series,audiobook,reading list,classic,fantasy book,memoir,bookstore", "", 0.7),
  spec("chess", "Chess", "opening,endgame,blitz,rating,tournament,gambit,puzzle,grandmaster,checkmate,engine", "Miscellaneous,Strategy,Chess Question", 0.5),
  spec("dataisbeautiful", "Data Is Beautiful", "chart,visualization,dataset,map,timeline,survey,population,heatmap,correlation,spreadsheet", "OC,Discussion", 0.15),
  spec("explainlikeimfive", "Explain Like I'm Five", "gravity,inflation,vaccine,black hole,electricity,GPS,compound interest,sleep,rainbow,engine", "Physics,Biology,Economics,Technology,Other", 1),
  spec("formula1", "Formula 1", "pit stop,qualifying,tyre strategy,safety car,team radio,constructor,Grand Prix,DRS,podium,sprint race", "News,Discussion,Social Media,Video", 0.35),
  spec("hiking", "Hiking", "trail,summit,backpack,boots,switchback,trailhead,water filter,ridge,national park,elevation gain", "Pictures,Questions,Gear", 0.3),
  spec("running", "Running", "marathon,tempo run,shoes,long run,5K,injury,pace,training plan,recovery,race day", "Training,Race Report,Question", 0.9),
  spec("nosleep", "nosleep", "basement,cabin,neighbour,night shift,phone call,attic,forest road,old house,static,mirror", "Series,Self Post", 1),
  spec("MorbidReality", "Morbid Reality", "accident,disaster,history,investigation,report,aftermath,survivor,tragedy,archive,war", "", 0.4, true),
  spec("FiftyFifty", "50/50", "coin flip,gamble,surprise,reveal,mystery,choice,luck,risk,twist,roulette", "", 0.05, true),
  spec("Python", "Python", "virtualenv,pandas,decorator,type hint,asyncio,package,list comprehension,pytest,Django,script", "Discussion,Showcase,Resource,Help", 0.75),
  spec("GameDev", "Game Development", "engine,shader,prototype,playtest,sprite,level design,Steam page,collision,physics engine,game jam", "Discussion,Question,Video", 0.6),
];
